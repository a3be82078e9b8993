import AxeBuilder from '@axe-core/playwright';

import { ask, expect, screenshot, test } from './fixtures';

/** Every page at phone width (390×844) without horizontal overflow, and axe-core on every page. */
const PAGES = [
  { path: '/', name: 'chat', ready: "Ask your team's knowledge base" },
  { path: '/explore', name: 'graph', ready: null },
  { path: '/sync', name: 'sources', ready: null },
  { path: '/changed', name: 'changes', ready: 'What changed' },
  { path: '/no-such-page', name: 'not found', ready: 'Page not found' },
];

for (const p of PAGES) {
  test(`${p.name} fits a phone screen (390×844 and 360×740)`, async ({ page }) => {
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(p.path);
    await page.waitForLoadState('networkidle');
    const narrow = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(narrow, 'at 360 px').toBeLessThanOrEqual(360);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(p.path);
    await page.waitForLoadState('networkidle');
    if (p.ready) await expect(page.getByRole('heading', { name: p.ready })).toBeVisible();
    const overflow = await page.evaluate(() => {
      const root = document.scrollingElement ?? document.documentElement;
      const wide = [...document.querySelectorAll<HTMLElement>('body *')]
        .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1)
        .slice(0, 5)
        .map((el) => `${el.tagName.toLowerCase()}.${el.className}`);
      return { scroll: root.scrollWidth, client: root.clientWidth, wide };
    });
    expect(overflow.scroll, JSON.stringify(overflow)).toBeLessThanOrEqual(overflow.client);
    if (p.name === 'graph') {
      await expect(page.locator('.gnode').first()).toBeVisible();
      await page.waitForTimeout(1500); // the layout and fit-to-screen settle
    }
    const file = p.name.replace(' ', '-');
    await screenshot(page, `${file}-phone`, `docs/screenshots/${file}-phone.png`);
  });

  test(`${p.name} has no serious or critical accessibility violation (axe-core)`, async ({
    page,
  }) => {
    await page.goto(p.path);
    await page.waitForLoadState('networkidle');
    if (p.name === 'chat') await ask(page, 'What is PAY-12 about?'); // citation chips and badges
    const results = await new AxeBuilder({ page }).analyze();
    const serious = results.violations.filter(
      (v) => v.impact === 'serious' || v.impact === 'critical',
    );
    expect(
      serious.map(
        (v) => `${v.id} (${v.impact}): ${v.nodes.length} × ${v.nodes[0]?.target.join(' ')}`,
      ),
    ).toEqual([]);
  });
}

test('the document panel is a bottom sheet on a phone, inside the screen', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/explore?focus=jira:PAY-7');
  const panel = page.locator('app-document-panel');
  await expect(panel).toBeVisible();
  const box = (await panel.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(390);
  expect(box.y + box.height).toBeLessThanOrEqual(844);
  const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(scroll).toBeLessThanOrEqual(390);
});
