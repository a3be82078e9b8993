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

test('a file chosen in the drop zone is uploaded, indexed and private to its uploader', async ({
  page,
}) => {
  await page.goto('/sync');
  const zone = page.getByTestId('upload-drop');
  await expect(zone.getByRole('heading', { name: 'Upload documents' })).toBeVisible();
  const name = `runbook-${Date.now()}.md`;
  await zone.locator('input[type=file]').setInputFiles({
    name,
    mimeType: 'text/markdown',
    buffer: Buffer.from(
      '# Restarting the ledger writer\n\nStop the writer, run the ledger check, start it.\n',
    ),
  });
  await expect(
    zone.getByText('indexed as “Restarting the ledger writer” (private to you)'),
  ).toBeVisible({
    timeout: 60_000,
  });
  await zone.locator('input[type=file]').setInputFiles({
    name: 'tool.exe',
    mimeType: 'application/octet-stream',
    buffer: Buffer.from('MZ'),
  });
  await expect(zone.getByRole('alert')).toContainText('.exe is not accepted');
  await expect(page.locator('li.card[data-source="uploads"]')).toBeVisible();
});

test('"Your uploads" lists the person’s own uploads; Delete takes one out of the index', async ({
  page,
}) => {
  await page.goto('/sync');
  const zone = page.getByTestId('upload-drop');
  const name = `oncall-${Date.now()}.md`;
  const marker = `zebrafish${Date.now()}`;
  await zone.locator('input[type=file]').setInputFiles({
    name,
    mimeType: 'text/markdown',
    buffer: Buffer.from(`# Sandbox key rotation\n\nThe ${marker} key is rotated by Dana.\n`),
  });
  const mine = page.getByTestId('your-uploads');
  const row = mine.locator('li', { hasText: name });
  await expect(row).toBeVisible({ timeout: 60_000 });
  await expect(row.getByRole('link', { name: 'Sandbox key rotation' })).toHaveAttribute(
    'href',
    /\/explore\?focus=upload/,
  );
  await expect(row).toContainText('bytes');
  await row.scrollIntoViewIfNeeded();
  await screenshot(page, 'your-uploads', 'docs/screenshots/your-uploads.png');
  const href = (await row.getByRole('link').getAttribute('href')) ?? '';
  const documentId = decodeURIComponent(href.split('focus=')[1] ?? '');
  const found = async () =>
    (await page.request.get(`/documents/${encodeURIComponent(documentId)}`)).status();
  expect(await found()).toBe(200);

  page.once('dialog', (d) => void d.accept());
  await row.getByRole('button', { name: `Delete ${name}` }).click();
  await expect(row).toHaveCount(0);
  await expect(zone.getByText('indexed as “Sandbox key rotation”')).toHaveCount(0);
  await expect.poll(found).toBe(404);
});
