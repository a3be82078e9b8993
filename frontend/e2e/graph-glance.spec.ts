import AxeBuilder from '@axe-core/playwright';
import { type Page } from '@playwright/test';

import { expect, screenshot, test } from './fixtures';

/** The graph's first view reads at a glance; its controls stay reachable; a phone gets the canvas. */

async function settled(page: Page): Promise<void> {
  await expect(page.locator('.gnode').first()).toBeVisible();
  await page.waitForLoadState('networkidle');
  await page.waitForTimeout(800); // the fit is applied once the nodes stop moving
}

test('the first view names documents by their titles, no two labels overlap, and says where to start', async ({
  page,
}) => {
  await page.goto('/explore');
  await settled(page);
  const labels = page.locator('[data-testid="node-label"]');
  // labels on screen and on top: nothing (another node, a panel) covers their text
  const boxes = await labels.evaluateAll((els) =>
    els
      .map((el) => ({ el, text: el.textContent?.trim() ?? '', r: el.getBoundingClientRect() }))
      .filter(({ r }) => r.width > 0 && r.bottom > 0 && r.top < window.innerHeight)
      .filter(({ el, r }) =>
        [0.2, 0.5, 0.8].every((f) =>
          el.contains(document.elementFromPoint(r.x + r.width * f, r.y + r.height / 2)),
        ),
      )
      .map(({ text, r }) => ({ text, x: r.x, y: r.y, w: r.width, h: r.height })),
  );
  expect(boxes.length, boxes.map((b) => b.text).join(' | ')).toBeGreaterThanOrEqual(10);
  for (const b of boxes) {
    expect(b.text, 'a human title, not an id').not.toMatch(/^(page \d+|commit [0-9a-f]{7})$/);
    expect(b.text.length).toBeGreaterThan(8);
    expect(b.h, `${b.text}: readable (at least 12 px tall)`).toBeGreaterThanOrEqual(12);
  }
  for (let i = 0; i < boxes.length; i++)
    for (let j = i + 1; j < boxes.length; j++) {
      const [a, c] = [boxes[i], boxes[j]];
      const apart = a.x + a.w <= c.x || c.x + c.w <= a.x || a.y + a.h <= c.y || c.y + c.h <= a.y;
      expect(apart, `"${a.text}" overlaps "${c.text}"`).toBe(true);
    }
  const start = page.getByTestId('start-here');
  await expect(start.getByRole('heading', { name: 'Start here' })).toBeVisible();
  await expect(start.getByRole('listitem')).toHaveCount(5);
  await screenshot(page, 'graph-first-view', 'docs/screenshots/graph-desktop.png');
  // a "start here" entry opens that document
  await start.getByRole('button').nth(1).click();
  await expect(page).toHaveURL(/\/explore\?focus=/);
  await expect(page.getByTestId('document-panel')).toBeVisible();
});

for (const size of [
  { name: 'desktop', width: 1440, height: 900 },
  { name: 'phone', width: 390, height: 844 },
  { name: 'small phone', width: 360, height: 740 },
]) {
  test(`the zoom buttons can be hit with the details panel and legend open (${size.name})`, async ({
    page,
  }) => {
    await page.setViewportSize({ width: size.width, height: size.height });
    await page.goto('/explore?focus=jira:PAY-7');
    await expect(page.getByTestId('document-panel')).toBeVisible();
    const legend = page.locator('details.legend');
    // open (on a phone it starts folded, and the details sheet lies over its summary)
    await legend.evaluate((d) => ((d as HTMLDetailsElement).open = true));
    for (const name of ['Zoom in', 'Zoom out', 'Fit the graph to the screen']) {
      const button = page.getByRole('button', { name, exact: true });
      const box = (await button.boundingBox())!;
      const hit = await page.evaluate(
        ([x, y, label]) =>
          document.elementFromPoint(x, y)?.closest('button')?.getAttribute('aria-label') === label,
        [box.x + box.width / 2, box.y + box.height / 2, name] as const,
      );
      expect(hit, `${name} is on top at its centre`).toBe(true);
    }
    if (size.width < 640) {
      // the graph gets most of the screen, and the help speaks of touch
      const canvas = (await page.locator('.canvas-wrap').boundingBox())!;
      expect(canvas.height / size.height).toBeGreaterThan(0.7);
      await expect(legend.getByText('Tap: details')).toBeVisible();
      await expect(legend.getByText(/Wheel|Double-click/)).toBeHidden();
    }
  });
}

test('the details panel shows a document as text, not Markdown source', async ({ page }) => {
  await page.goto('/explore?focus=confluence:page:2000004');
  const panel = page.getByTestId('document-panel');
  const text = panel.locator('.doc-text').first();
  await expect(text).toBeVisible();
  const shown = await panel.locator('.doc-text').allInnerTexts();
  expect(shown.join('\n')).not.toMatch(/^#{1,6} |\*\*\S|^\s*[-*] \[|\]\(https?:/m);
});

test('the graph with the details panel open has no serious or critical accessibility violation', async ({
  page,
}) => {
  await page.goto('/explore?focus=jira:PAY-7');
  await expect(page.getByTestId('document-panel')).toBeVisible();
  await page.waitForLoadState('networkidle');
  await axeClean(page);
});

test("the details panel with a document's history and a version opened passes axe-core", async ({
  page,
}) => {
  await page.goto('/explore?focus=confluence:page:2000004');
  const history = page.getByTestId('document-history');
  const version = history.getByRole('button', { name: /version 11/ });
  await version.scrollIntoViewIfNeeded();
  await version.click();
  await expect(history.getByTestId('version-diff')).toBeVisible();
  await page.waitForLoadState('networkidle');
  await axeClean(page);
});

async function axeClean(page: Page): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations.filter(
    (v) => v.impact === 'serious' || v.impact === 'critical',
  );
  expect(
    serious.map(
      (v) => `${v.id} (${v.impact}): ${v.nodes.length} × ${v.nodes[0]?.target.join(' ')}`,
    ),
  ).toEqual([]);
}

/** Issue 61, item 6: edge labels read "me linked issue ue" where two were drawn on one spot. */
interface Box {
  text: string;
  x: number;
  y: number;
  w: number;
  h: number;
}
async function boxesOf(page: Page, selector: string): Promise<Box[]> {
  return page.locator(selector).evaluateAll((els) =>
    els
      .map((el) => ({ text: el.textContent?.trim() ?? '', r: el.getBoundingClientRect() }))
      .filter(({ r }) => r.width > 0 && r.height > 0)
      .map(({ text, r }) => ({ text, x: r.x, y: r.y, w: r.width, h: r.height })),
  );
}
const overlap = (a: Box, c: Box) =>
  !(
    a.x + a.w <= c.x + 0.5 ||
    c.x + c.w <= a.x + 0.5 ||
    a.y + a.h <= c.y + 0.5 ||
    c.y + c.h <= a.y + 0.5
  );

for (const view of [
  { name: 'a selected issue', width: 1440, height: 900, mode: 'auto' },
  { name: 'a selected issue on a phone', width: 360, height: 740, mode: 'auto' },
  { name: 'every edge labelled', width: 1440, height: 900, mode: 'all' },
]) {
  test(`no two edge labels overlap (${view.name})`, async ({ page }) => {
    await page.setViewportSize({ width: view.width, height: view.height });
    await page.goto(
      view.mode === 'all' ? '/explore' : `/explore?focus=${encodeURIComponent('jira:PAY-12')}`,
    );
    await settled(page);
    if (view.mode === 'all') await page.getByLabel('Edge labels').selectOption('all');
    // the labels are placed as the layout settles: on a loaded machine that takes longer than
    // a fixed wait (a fresh-clone run read one frame mid-placement), so wait for it to settle
    const overlapping = async () => {
      const labels = await boxesOf(page, '[data-testid="edge-label"]');
      const pairs: string[] = [];
      for (let i = 0; i < labels.length; i++)
        for (let j = i + 1; j < labels.length; j++)
          if (overlap(labels[i], labels[j]))
            pairs.push(`"${labels[i].text}" overlaps "${labels[j].text}"`);
      return { labelled: labels.length > 2, pairs };
    };
    await expect
      .poll(overlapping, { timeout: 15_000, message: 'edge labels settle without overlapping' })
      .toEqual({ labelled: true, pairs: [] });
    const shot = `graph-edge-labels-${view.mode}-${view.width}`;
    await screenshot(page, shot, view.mode === 'auto' ? `docs/screenshots/${shot}.png` : undefined);
  });
}
