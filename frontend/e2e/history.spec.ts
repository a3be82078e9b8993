import { expect, screenshot, test } from './fixtures';

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

    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(wide, `fits ${screen.width} px`).toBeLessThanOrEqual(screen.width);
    await screenshot(page, `history-${screen.name}`);
  });
}
