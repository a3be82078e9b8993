import { SIGNED_OUT, expect, screenshot, signIn, test } from './fixtures';

/** A document's history in its graph panel (docs/history.md), on a desktop and at 360 px. */
const SCREENS = [
  { name: 'desktop', width: 1440, height: 900 },
  { name: 'phone', width: 360, height: 740 },
];

for (const screen of SCREENS) {
  test(`a document's history shows in its panel (${screen.name})`, async ({ page }) => {
    await page.setViewportSize({ width: screen.width, height: screen.height });

    // an issue: its transitions, newest first
    await page.goto(`/explore?focus=${encodeURIComponent('jira:PAY-12')}`);
    const panel = page.getByTestId('document-panel');
    await expect(panel.getByRole('heading', { level: 2 })).toContainText('PAY-12');
    const history = panel.getByTestId('document-history');
    await history.scrollIntoViewIfNeeded();
    const items = history.locator('.tl');
    await expect(items).toHaveCount(6);
    await expect(items.first()).toContainText('Fix Version: none → 2026.6 · Priya Raman');
    await expect(history).toContainText('2026-05-07 status: In Review → Closed · Priya Raman');
    await expect(items.last()).toContainText('2026-04-16 assignee: none → Marcus Chen');

    // a page: its versions; one opens against the current one
    await page.goto(`/explore?focus=${encodeURIComponent('confluence:page:2000004')}`);
    await expect(panel.getByRole('heading', { level: 2 })).toContainText('PSP Retry Policy');
    const version = history.getByRole('button', { name: /version 11/ });
    await version.scrollIntoViewIfNeeded();
    await version.click();
    await expect(version).toHaveAttribute('aria-expanded', 'true');
    await expect(history.getByTestId('version-diff')).toContainText('This is the current version.');
    // an older stored version (the demo keeps 9 and 10): its diff to the current one
    const older = history.getByRole('button', { name: /version 9\b/ });
    await older.scrollIntoViewIfNeeded();
    await older.click();
    await expect(older).toHaveAttribute('aria-expanded', 'true');
    await expect(history.getByTestId('version-diff').last()).toContainText('at most 3 attempts');

    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(wide, `fits ${screen.width} px`).toBeLessThanOrEqual(screen.width);
    await screenshot(page, `history-${screen.name}`);
  });
}

/** "What changed" per source with a date range (docs/history.md), on a desktop and at 360 px. */
for (const screen of SCREENS) {
  test(`the What changed view lists a source's changes in a range (${screen.name})`, async ({
    page,
  }) => {
    await page.setViewportSize({ width: screen.width, height: screen.height });
    await page.goto('/changes'); // the API's path, opened in a browser: the app's page
    await expect(page).toHaveURL(/\/changed$/);
    await expect(page.getByRole('heading', { name: 'What changed', level: 1 })).toBeVisible();

    await page.getByLabel('From').fill('2026-05-01');
    await page.getByLabel('From').dispatchEvent('change');
    await page.getByLabel('To').fill('2026-05-10');
    await page.getByLabel('To').dispatchEvent('change');
    await page.getByLabel('Source').selectOption('jira');
    const summary = page.getByTestId('changes-summary');
    // the moves of PAY-12 and the comments made on PAY-1 and PAY-12 those days
    await expect(summary).toHaveText('6 changes to 2 documents: 2 comments, 4 edits or moves');
    const day = page.getByRole('region', { name: '2026-05-07' });
    await expect(day).toContainText('2026-05-07 comment · Marcus Chen');
    await expect(day).toContainText('status: In Review → Closed · Priya Raman');
    await expect(page.getByRole('region', { name: '2026-05-06' })).toContainText(
      'status: In Progress → In Review · Marcus Chen',
    );
    await screenshot(page, `changes-${screen.name}`);

    await page.getByLabel('Source').selectOption('');
    await expect(summary).not.toHaveText(/^6 changes to 2 documents/); // pages and commits too
    await expect(page.getByRole('region', { name: '2026-05-02' })).toContainText(
      'version 3 · Sofia Alvarez',
    );
    await page.getByLabel('To').fill('2026-05-01');
    await page.getByLabel('To').dispatchEvent('change');
    await page.getByLabel('From').fill('2025-01-01');
    await page.getByLabel('From').dispatchEvent('change');
    await page.getByLabel('To').fill('2025-12-31');
    await page.getByLabel('To').dispatchEvent('change');
    await expect(page.getByTestId('changes-empty')).toContainText(
      'Nothing changed in that range in what you can read.',
    );

    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(wide, `fits ${screen.width} px`).toBeLessThanOrEqual(screen.width);

    // a change leads to its document in the graph
    await page.getByLabel('From').fill('2026-05-01');
    await page.getByLabel('From').dispatchEvent('change');
    await page.getByLabel('To').fill('2026-05-10');
    await page.getByLabel('To').dispatchEvent('change');
    await page.getByLabel('Source').selectOption('jira');
    await page
      .getByRole('link', { name: /PAY-12/ })
      .first()
      .click();
    await expect(page).toHaveURL(/focus=jira%3APAY-12|focus=jira:PAY-12/);
  });
}

/** Issue 61, item 2: carol reads Jira WEB only, whose issues have no recorded transitions — her
 *  year of What changed was empty. Creation and comments count now; an empty range says which
 *  sources the view covers. Desktop and 360 px. */
test.describe('What changed for a reader of one project', () => {
  test.use({ storageState: SIGNED_OUT });
  for (const screen of SCREENS) {
    test(`carol's year lists issues created and commented on (${screen.name})`, async ({
      page,
    }) => {
      await page.setViewportSize({ width: screen.width, height: screen.height });
      await signIn(page.request, (u) => u.email === 'carol@acme.example');
      await page.goto('/changed');
      await page.getByLabel('From').fill('2026-01-01');
      await page.getByLabel('From').dispatchEvent('change');
      await page.getByLabel('To').fill('2026-12-31');
      await page.getByLabel('To').dispatchEvent('change');
      const summary = page.getByTestId('changes-summary');
      await expect(summary).toContainText('11 created');
      await expect(summary).toContainText('comments');
      await expect(page.locator('li.change').filter({ hasText: /PAY-/ })).toHaveCount(0);
      const october = page.getByRole('region', { name: '2026-10-06' });
      await expect(october).toContainText('2026-10-06 comment · Hannah Weber');
      await expect(page.getByRole('region', { name: '2026-10-03' })).toContainText(
        'created · Tomás Silva',
      );
      const wide = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(wide, `fits ${screen.width} px`).toBeLessThanOrEqual(screen.width);
      await screenshot(
        page,
        `changes-carol-${screen.name}`,
        `docs/screenshots/changes-carol-${screen.name}.png`,
      );

      // a range with nothing she can read: told what the view covers
      await page.getByLabel('From').fill('2025-01-01');
      await page.getByLabel('From').dispatchEvent('change');
      await page.getByLabel('To').fill('2025-12-31');
      await page.getByLabel('To').dispatchEvent('change');
      const empty = page.getByTestId('changes-empty');
      await expect(empty).toContainText('Nothing changed in that range in what you can read.');
      await expect(empty).toContainText('jira (issues created, commented on and moved)');
      await expect(summary).toHaveText('0 changes to 0 documents');
    });
  }
});
