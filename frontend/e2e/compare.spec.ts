import AxeBuilder from '@axe-core/playwright';
import { type Page } from '@playwright/test';

import { expect, screenshot, test } from './fixtures';

/** "Compare" from the graph: the panel's "Compare with…" and the search's compare tray open the
 * chat with the comparison asked and answered, each side cited. */

const EMOJI = /\p{Extended_Pictographic}/u;

/** The newest chat turn: the comparison asked of `a` and `b`, answered, both documents cited. */
async function answerCites(page: Page, a: string, b: string, ids: [string, string]): Promise<void> {
  await expect(page).toHaveURL(/\/$/);
  const turn = page.locator('app-chat-turn').last();
  await expect(turn.locator('.answer')).toHaveAttribute('aria-busy', 'false', { timeout: 60_000 });
  await expect(turn).toContainText(`Compare ${a} and ${b}`);
  const answer = turn.locator('.answer');
  await expect(answer).toContainText('Comparing');
  await expect(answer).toContainText('[1]');
  await expect(answer).toContainText('[2]');
  const text = (await turn.innerText()).replace(/\s+/g, ' ');
  expect(text).toContain(a);
  expect(text).toContain(b);
  // each side is a source of the answer: [1] and [2] are the two documents compared
  const cited = await turn.locator('app-source-card .id').allInnerTexts();
  expect(cited.slice(0, 2).sort()).toEqual([...ids].sort());
}

for (const size of [
  { name: 'desktop', width: 1440, height: 900 },
  { name: 'phone', width: 360, height: 740 },
]) {
  test(`"Compare with…" in the document panel compares two documents (${size.name})`, async ({
    page,
  }) => {
    await page.setViewportSize({ width: size.width, height: size.height });
    await page.goto('/explore?focus=jira:PAY-9');
    const panel = page.getByTestId('document-panel');
    await expect(panel).toBeVisible();
    const open = panel.getByRole('button', { name: 'Compare with…' });
    await expect(open).toHaveAttribute('aria-expanded', 'false');
    await open.click();
    await expect(open).toHaveAttribute('aria-expanded', 'true');
    // the picker's field has the focus: a keyboard types the other document at once
    const field = panel.getByRole('combobox', { name: 'Document to compare with' });
    await expect(field).toBeFocused();
    await page.keyboard.type('PAY-29');
    const options = panel.getByRole('option');
    await expect(options.first()).toContainText('PAY-29');
    // the document compared is never offered against itself
    await expect(panel.getByRole('option', { name: /PAY-9\b/ })).toHaveCount(0);

    // nothing is wider than the screen, and the picker's list stays inside it
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - window.innerWidth,
    );
    expect(overflow, 'no sideways scrolling').toBeLessThanOrEqual(0);
    const list = (await panel.getByRole('listbox').boundingBox())!;
    expect(list.x).toBeGreaterThanOrEqual(0);
    expect(list.x + list.width).toBeLessThanOrEqual(size.width);

    const axe = await new AxeBuilder({ page }).include('[data-testid="document-panel"]').analyze();
    const serious = axe.violations.filter((v) => ['serious', 'critical'].includes(v.impact ?? ''));
    expect(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(', ')}`)).toEqual([]);
    const labels = await panel.evaluate((el) =>
      [
        el.innerText,
        ...[...el.querySelectorAll('[aria-label],[title],[placeholder]')].flatMap((n) =>
          ['aria-label', 'title', 'placeholder'].map((a) => n.getAttribute(a) ?? ''),
        ),
      ].join(' '),
    );
    expect(labels).not.toMatch(EMOJI);
    await screenshot(
      page,
      `compare-picker-${size.name}`,
      size.name === 'desktop' ? 'docs/screenshots/compare-picker.png' : undefined,
    );

    // keyboard: Enter picks the highlighted document and asks the chat
    await page.keyboard.press('Enter');
    await answerCites(page, 'PAY-9', 'PAY-29', ['jira:PAY-9', 'jira:PAY-29']);
    await screenshot(page, `compare-answer-${size.name}`);
  });
}

for (const size of [
  { name: 'desktop', width: 1440, height: 900 },
  { name: 'phone', width: 360, height: 740 },
]) {
  test(`two graph search results compared from the toolbar (${size.name})`, async ({ page }) => {
    await page.setViewportSize({ width: size.width, height: size.height });
    await page.goto('/explore');
    await expect(page.locator('.gnode').first()).toBeVisible();
    const toggle = page.getByRole('button', { name: 'Compare', exact: true });
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-pressed', 'true');
    const tray = page.getByRole('group', { name: 'Documents to compare' });
    const go = tray.getByRole('button', { name: 'Compare these two' });
    await expect(go).toBeDisabled();
    const search = page.getByRole('combobox', { name: 'Find a document to compare' });
    for (const q of ['PSP Retry Policy', 'PAY-7', 'PAY-9']) {
      await search.fill(q);
      await expect(page.getByRole('option').first()).toContainText(q);
      await search.press('Enter');
    }
    // two at most: the first pick made room for the third; one is removed again
    const picks = tray.getByTestId('compare-pick');
    await expect(picks).toHaveCount(2);
    await expect(picks.first()).toContainText('PAY-7');
    await tray.getByRole('button', { name: /^Remove .*PAY-9/ }).click();
    await expect(picks).toHaveCount(1);
    await expect(go).toBeDisabled();
    await search.fill('PSP Retry Policy');
    await expect(page.getByRole('option').first()).toContainText('PSP Retry Policy');
    await search.press('Enter');
    await expect(picks).toHaveCount(2);
    // picking in compare mode does not open the document
    await expect(page.getByTestId('document-panel')).toHaveCount(0);
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - window.innerWidth,
    );
    expect(overflow, 'no sideways scrolling').toBeLessThanOrEqual(0);
    const axe = await new AxeBuilder({ page }).include('.toolbar').analyze();
    const serious = axe.violations.filter((v) => ['serious', 'critical'].includes(v.impact ?? ''));
    expect(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(', ')}`)).toEqual([]);
    expect(await page.locator('.toolbar').innerText()).not.toMatch(EMOJI);
    await screenshot(page, `compare-tray-${size.name}`);
    await go.click();
    await answerCites(page, 'PAY-7', '“PSP Retry Policy”', [
      'jira:PAY-7',
      'confluence:page:2000004',
    ]);
  });
}
