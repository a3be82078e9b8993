import type { APIRequestContext } from '@playwright/test';

import { expect, screenshot, test } from './fixtures';

interface Graph {
  nodes: { id: string; title: string }[];
  edges: { source: string; target: string }[];
}

/**
 * A document Y next to X whose own neighbours are not all in X's neighbourhood, so that
 * double-clicking Y on /explore?focus=X adds documents.
 */
async function expandable(
  request: APIRequestContext,
): Promise<{ focus: string; id: string; missing: string }> {
  const top: Graph = await (await request.get('/graph?limit=30')).json();
  expect(top.nodes.length).toBeGreaterThan(0);
  for (const x of top.nodes) {
    const around: Graph = await (
      await request.get(`/graph?limit=300&around=${encodeURIComponent(x.id)}`)
    ).json();
    const shown = new Set(around.nodes.map((n) => n.id));
    for (const y of around.nodes) {
      if (y.id === x.id) continue;
      const nb: { document: { id: string } }[] = await (
        await request.get(`/documents/${encodeURIComponent(y.id)}/neighbors`)
      ).json();
      const missing = nb.find((n) => !shown.has(n.document.id));
      if (missing) return { focus: x.id, id: y.id, missing: missing.document.id };
    }
  }
  throw new Error('no document has neighbours beyond its neighbourhood');
}

test('double-clicking a node expands its neighbours without reloading the graph', async ({
  page,
  request,
}) => {
  const target = await expandable(request);

  await page.goto(`/explore?focus=${encodeURIComponent(target.focus)}`);
  const nodes = page.locator('.gnode');
  await expect(nodes.first()).toBeVisible();
  await expect(page.locator(`.gnode[data-id="${target.missing}"]`)).toHaveCount(0);
  const before = await nodes.count();

  let reloads = 0;
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === '/graph') reloads += 1;
  });
  const node = page.locator(`.gnode[data-id="${target.id}"]`);
  await node.scrollIntoViewIfNeeded();
  await node.dblclick();

  await expect(page.locator(`.gnode[data-id="${target.missing}"]`)).toHaveCount(1);
  expect(await nodes.count()).toBeGreaterThan(before);
  expect(reloads).toBe(0);
  await expect(node).toHaveClass(/expanded/);
  await expect(
    page.getByTestId('document-panel').getByRole('button', { name: 'Neighbours shown' }),
  ).toBeDisabled();
});

test('a focused document is shown with its neighbours in the canvas the details panel leaves', async ({
  page,
  request,
}) => {
  // the best-connected document on the first page: its neighbourhood is larger than the canvas
  const top: Graph = await (await request.get('/graph?limit=30')).json();
  const degree = new Map<string, number>();
  for (const e of top.edges)
    for (const id of [e.source, e.target]) degree.set(id, (degree.get(id) ?? 0) + 1);
  const focus = [...degree.entries()].sort((a, b) => b[1] - a[1])[0][0];
  const nb: { document: { id: string } }[] = await (
    await request.get(`/documents/${encodeURIComponent(focus)}/neighbors`)
  ).json();
  expect(nb.length).toBeGreaterThan(5);

  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/explore?focus=${encodeURIComponent(focus)}`);
  const panel = page.getByTestId('document-panel');
  await expect(panel).toBeVisible();
  const node = page.locator(`.gnode[data-id="${focus}"]`);
  await expect(node).toBeVisible();
  await page.waitForTimeout(1500); // the view settles over a few frames
  const canvas = (await page.locator('f-flow').boundingBox())!;
  const side = (await panel.boundingBox())!;
  expect(canvas.x + canvas.width).toBeLessThanOrEqual(side.x + 1); // the panel is beside the canvas
  const inView = async (id: string) => {
    const box = await page.locator(`.gnode[data-id="${id}"]`).boundingBox();
    if (!box) return false;
    return (
      box.x >= canvas.x &&
      box.y >= canvas.y &&
      box.x + box.width <= canvas.x + canvas.width &&
      box.y + box.height <= canvas.y + canvas.height
    );
  };
  expect(await inView(focus)).toBe(true);
  const drawn = [];
  for (const n of nb)
    if ((await page.locator(`.gnode[data-id="${n.document.id}"]`).count()) > 0)
      drawn.push(n.document.id);
  let seen = 0;
  for (const id of drawn) if (await inView(id)) seen += 1;
  // the document alone at the centre at zoom 1 left most of them out of view (6 of 21 on the demo)
  expect(seen / drawn.length).toBeGreaterThanOrEqual(0.5);
  await screenshot(page, 'graph-neighbourhood-1440', 'docs/screenshots/graph-neighbourhood.png');
});

test('search finds a document, type filters apply, and the graph view is captured', async ({
  page,
}) => {
  await page.goto('/explore');
  await expect(page.locator('.gnode').first()).toBeVisible();

  const search = page.getByRole('combobox', { name: 'Find a document' });
  await search.fill('PAY-7');
  const option = page
    .getByRole('option')
    .filter({ has: page.locator('.key', { hasText: /^PAY-7$/ }) });
  await option.click();
  await expect(page).toHaveURL(/focus=jira%3APAY-7|focus=jira:PAY-7/);
  await expect(page.locator('.gnode[data-id="jira:PAY-7"]')).toHaveClass(/selected/);
  await expect(page.getByTestId('document-panel').getByRole('heading', { level: 2 })).toContainText(
    'PAY-7',
  );
  await expect(page.getByTestId('document-panel').locator('.chunk').first()).toBeVisible();

  // Turning Confluence off hides every Confluence node.
  await page
    .getByRole('group', { name: 'Document types' })
    .getByRole('button', { name: 'Confluence' })
    .click();
  await expect(page.locator('.gnode[data-type="CONFLUENCE"]')).toHaveCount(0);
  await page
    .getByRole('group', { name: 'Document types' })
    .getByRole('button', { name: 'Confluence' })
    .click();
  await expect(page.locator('.gnode[data-type="CONFLUENCE"]').first()).toBeVisible();

  // The README's picture: an issue with its commits, pull request, files and design page.
  await page.goto('/explore?focus=jira%3APAY-7');
  await expect(page.locator('.gnode[data-id="jira:PAY-7"]')).toHaveClass(/selected/);
  await expect(page.getByTestId('document-panel').locator('.chunk').first()).toBeVisible();
  await page.waitForTimeout(800); // the viewport settles
  await screenshot(page, 'graph', 'docs/screenshots/graph.png');
});

test('renders 500 documents and stays responsive while zooming', async ({ page }) => {
  // A synthetic page of the graph (the demo workspace is smaller): 500 nodes, 700 edges.
  const types = ['JIRA', 'CONFLUENCE', 'GITHUB'];
  const nodes = Array.from({ length: 500 }, (_, i) => ({
    id: `jira:SYN-${i}`,
    type: types[i % 3],
    title: `Synthetic document ${i}`,
    url: '',
    metadata: {},
  }));
  const edges = Array.from({ length: 700 }, (_, i) => ({
    source: `jira:SYN-${(i * 7) % 500}`,
    target: `jira:SYN-${(i * 13 + 1) % 500}`,
    kind: 'jira-issuelink',
    evidence: '',
  }));
  await page.route(/\/graph\?/, (route) => route.fulfill({ json: { nodes, edges } }));

  const t0 = Date.now();
  await page.goto('/explore');
  await page.getByRole('combobox', { name: 'Number of documents to load' }).selectOption('500');
  await expect(page.locator('.gnode')).toHaveCount(500);
  await expect(page.getByTestId('graph-counts')).toContainText('500 documents');
  const renderMs = Date.now() - t0;

  const frames = await page.evaluate(async () => {
    const gaps: number[] = [];
    let last = performance.now();
    const flow = document.querySelector('f-flow')!;
    const box = flow.getBoundingClientRect();
    for (let i = 0; i < 30; i++) {
      flow.dispatchEvent(
        new WheelEvent('wheel', {
          deltaY: i < 15 ? -40 : 40,
          clientX: box.x + box.width / 2,
          clientY: box.y + box.height / 2,
          bubbles: true,
          cancelable: true,
        }),
      );
      await new Promise((r) => requestAnimationFrame(r));
      const now = performance.now();
      gaps.push(now - last);
      last = now;
    }
    gaps.sort((a, b) => a - b);
    return { median: gaps[Math.floor(gaps.length / 2)], p90: gaps[Math.floor(gaps.length * 0.9)] };
  });
  console.log(
    `500 nodes: rendered in ${renderMs} ms; zoom frames median ${frames.median.toFixed(1)} ms, p90 ${frames.p90.toFixed(1)} ms`,
  );
  // Loose bounds: headless Chromium rasterises in software and CI machines are shared; on a quiet
  // 2-core machine this measures about 4 s to render and 40-50 ms per zoom frame.
  expect(renderMs).toBeLessThan(30_000);
  expect(frames.median).toBeLessThan(250);
});
