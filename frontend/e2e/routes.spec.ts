import { expect, screenshot, test } from './fixtures';

/**
 * Every app URL opens and survives a reload — including the API-shaped ones people share
 * (/graph, /sources, /documents/<id>): a browser navigation gets the app, which routes them to their
 * page; scripts asking for JSON still get the API. Unknown paths get the "not found" page.
 */
const ROUTES = [
  {
    url: '/',
    lands: /\/$/,
    shows: { role: 'heading', name: "Ask your team's knowledge base" },
    shot: 'chat',
  },
  {
    url: '/explore',
    lands: /\/explore$/,
    shows: { role: 'combobox', name: 'Find a document' },
    shot: 'graph-desktop',
  },
  { url: '/sync', lands: /\/sync$/, shows: { role: 'heading', name: 'Sources' }, shot: 'sources' },
  {
    url: '/graph',
    lands: /\/explore$/,
    shows: { role: 'combobox', name: 'Find a document' },
    shot: null,
  },
  { url: '/sources', lands: /\/sync$/, shows: { role: 'heading', name: 'Sources' }, shot: null },
  {
    url: '/chat',
    lands: /\/$/,
    shows: { role: 'heading', name: "Ask your team's knowledge base" },
    shot: null,
  },
  {
    url: '/documents/jira:PAY-7',
    lands: /\/explore\?focus=jira:PAY-7$/,
    shows: { role: 'combobox', name: 'Find a document' },
    shot: null,
  },
  {
    url: '/graph/jira:PAY-7',
    lands: /\/explore\?focus=jira:PAY-7$/,
    shows: { role: 'combobox', name: 'Find a document' },
    shot: null,
  },
  {
    url: '/no/such/page',
    lands: /\/no\/such\/page$/,
    shows: { role: 'heading', name: 'Page not found' },
    shot: 'not-found',
  },
] as const;

for (const r of ROUTES) {
  test(`${r.url} opens and reloads`, async ({ page }) => {
    for (const step of ['open', 'reload']) {
      if (step === 'open') await page.goto(r.url);
      else await page.reload();
      await expect(page).toHaveURL(r.lands);
      const target = r.shows.name
        ? page.getByRole(r.shows.role, { name: r.shows.name })
        : page.getByRole(r.shows.role).first();
      await expect(target, `${step} ${r.url}`).toBeVisible();
    }
    if (r.shot) {
      await page.waitForLoadState('networkidle');
      await page.waitForTimeout(1500); // the graph's layout and fit-to-screen settle
      await screenshot(page, r.shot, `docs/screenshots/${r.shot}.png`);
    }
  });
}

test('scripts still get the API on the same paths', async ({ request }) => {
  const graph = await request.get('/graph?limit=5', { headers: { accept: 'application/json' } });
  expect(graph.headers()['content-type']).toContain('application/json');
  expect((await graph.json()).nodes.length).toBeGreaterThan(0);
  const sources = await request.get('/sources');
  expect(sources.headers()['content-type']).toContain('application/json');
  const missing = await request.get('/documents/jira:NOPE-1', {
    headers: { accept: 'application/json' },
  });
  expect(missing.status()).toBe(404);
});

test("the graph's first view names its most connected documents in readable text", async ({
  page,
}) => {
  await page.goto('/explore');
  await page.waitForLoadState('networkidle');
  await page.waitForTimeout(1500); // layout and fit-to-screen
  const labels = await page.locator('.gnode.hub [data-testid="node-label"]').evaluateAll((els) =>
    els
      .map((e) => ({
        text: e.textContent?.trim() ?? '',
        rect: e.getBoundingClientRect(),
        style: getComputedStyle(e),
      }))
      .filter((l) => l.rect.width > 0 && l.style.visibility !== 'hidden')
      .map((l) => ({ text: l.text, height: l.rect.height })),
  );
  expect(labels.length, JSON.stringify(labels)).toBeGreaterThanOrEqual(5);
  for (const l of labels) expect(l.height, l.text).toBeGreaterThanOrEqual(10); // px on screen
  await expect(page.getByText('Jira issue', { exact: true })).toBeVisible(); // the legend of node types
});
