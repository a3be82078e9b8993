import { expect, screenshot, test } from './fixtures';

test('lists the sources and follows a sync to completion', async ({ page }) => {
  await page.goto('/sync');
  const cards = page.locator('li.card');
  await expect(cards.first()).toBeVisible();
  expect(await cards.count()).toBeGreaterThanOrEqual(3);
  for (const card of await cards.all()) {
    await expect(card.getByTestId('source-status')).toHaveText(
      /Up to date|Never synced|Failed|Syncing/,
    );
  }

  const card = page
    .locator('li.card[data-source]')
    .filter({ has: page.getByRole('heading', { name: /wiki|confluence/i }) })
    .first();
  const target = (await card.count()) ? card : cards.first();
  const polls: string[] = [];
  page.on('response', (r) => {
    if (/\/sources\/[^/]+\/runs\//.test(r.url())) polls.push(r.url());
  });
  await target.getByRole('button', { name: 'Sync now' }).click();

  const progress = target.getByRole('progressbar');
  await expect(progress).toBeVisible();
  await expect(target.getByTestId('source-status')).toHaveText('Up to date', { timeout: 120_000 });
  await expect(target.getByTestId('run-progress')).toContainText('succeeded');
  await expect(progress).toHaveAttribute('aria-valuenow', '100');
  expect(polls.length).toBeGreaterThan(0);
  await expect(target.getByText('Last success')).toBeVisible();
  await screenshot(page, 'sources');
});
