import AxeBuilder from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from '@playwright/test';

import { SIGNED_OUT, ask, authStatus, demoUser, expect, screenshot, test } from './fixtures';

/**
 * The demo's people (DEVKB_DEMO_USERS): signing in and out, each person seeing only what their
 * sources let them read — in the graph and in chat answers — and API tokens for scripts.
 * Passwords come from the demo server's /auth/status. Every test here starts signed out.
 */
test.use({ storageState: SIGNED_OUT });

const DAVE = 'dave@acme.example'; // reads everything the sources grant, the restricted pages too
const CAROL = 'carol@acme.example'; // Jira WEB issues only
const BOB = 'bob@acme.example';
const INCIDENT = /card data exposure incident postmortem/i; // a security-restricted Jira issue
const FRAUD = /fraud rule thresholds \(restricted\)/i; // a restricted wiki page
const QUESTION = 'What happened in the card data exposure incident postmortem?';

interface Person {
  context: BrowserContext;
  page: Page;
  errors: string[];
}

/** A new browser context, signed out; `errors` collects its page's uncaught errors. */
async function freshPage(browser: Browser): Promise<Person> {
  const context = await browser.newContext({ storageState: SIGNED_OUT });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { context, page, errors };
}

/** The documents on the graph page: id and title of every node. */
async function graphNodes(page: Page): Promise<{ id: string; title: string }[]> {
  await expect(page.locator('.gnode').first()).toBeVisible();
  await page.waitForLoadState('networkidle');
  return page.locator('.gnode').evaluateAll((els) =>
    els.map((e) => ({
      id: e.getAttribute('data-id') ?? '',
      title: e.querySelector('.title')?.textContent?.trim() ?? '',
    })),
  );
}

test('signed out, every page leads to the sign-in page with the demo users; a wrong password shows why', async ({
  page,
  request,
}) => {
  const status = await authStatus(request);
  expect(status.accounts).toBe(true);
  expect(status.user).toBeNull();
  expect(status.demo_users.map((u) => u.email)).toEqual(
    expect.arrayContaining(['alice@acme.example', BOB, CAROL, DAVE]),
  );

  await page.goto('/');
  await expect(page).toHaveURL(/\/signin\?return=%2F$/);
  await expect(page.getByRole('heading', { name: 'Sign in to devkb' })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Main' })).toHaveCount(0);
  const people = page.getByRole('list', { name: 'Demo users' }).getByRole('listitem');
  await expect(people).toHaveCount(status.demo_users.length);
  for (const u of status.demo_users) {
    const item = people.filter({ hasText: u.email });
    await expect(item).toContainText(u.role);
    await expect(item).toContainText(u.sees);
    await expect(item).toContainText(u.password);
    await expect(item.getByRole('button', { name: `Sign in as ${u.email}` })).toBeVisible();
  }
  await screenshot(page, 'signin');

  // The API's own words for a wrong password, shown on the page.
  const wrong = { email: BOB, password: 'not-the-password' };
  const api = await request.post('/auth/login', { data: wrong });
  expect(api.status()).toBe(401);
  const detail = ((await api.json()) as { detail: string }).detail;
  await page.getByLabel('E-mail').fill(wrong.email);
  await page.getByLabel('Password', { exact: true }).fill(wrong.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByRole('alert')).toHaveText(detail);
  await expect(page).toHaveURL(/\/signin/);
  await expect(page.getByLabel('Password', { exact: true })).toHaveValue('');

  // A deep link comes back after signing in.
  await page.goto('/sync');
  await expect(page).toHaveURL(/\/signin\?return=%2Fsync$/);
  const bob = await demoUser(request, (u) => u.email === BOB);
  await page.getByLabel('E-mail').fill(bob.email);
  await page.getByLabel('Password', { exact: true }).fill(bob.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page).toHaveURL(/\/sync$/);
  await expect(page.getByRole('heading', { name: 'Sources' })).toBeVisible();
  await expect(page.getByTestId('account-email')).toHaveText(BOB);
  await expect(page.getByTestId('account-role')).toHaveText('member');
});

test('the sign-in page fits a phone screen and has no serious accessibility violation', async ({
  page,
}) => {
  for (const width of [360, 390]) {
    await page.setViewportSize({ width, height: 780 });
    await page.goto('/signin');
    await expect(page.getByRole('heading', { name: 'Sign in to devkb' })).toBeVisible();
    await expect(page.getByRole('list', { name: 'Demo users' })).toBeVisible();
    const overflow = await page.evaluate(() => {
      const root = document.scrollingElement ?? document.documentElement;
      const wide = [...document.querySelectorAll<HTMLElement>('body *')]
        .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1)
        .slice(0, 5)
        .map((el) => `${el.tagName.toLowerCase()}.${el.className}`);
      return { scroll: root.scrollWidth, client: root.clientWidth, wide };
    });
    expect(overflow.scroll, JSON.stringify(overflow)).toBeLessThanOrEqual(overflow.client);
  }
  await screenshot(page, 'signin-phone');
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

test('dave and carol see different graphs and get different answers to the same question', async ({
  browser,
  request,
}) => {
  test.setTimeout(4 * 60_000);
  // Dave: "Fill in" then "Sign in", from a deep link to the graph.
  const dave = await freshPage(browser);
  await dave.page.goto('/explore');
  await expect(dave.page).toHaveURL(/\/signin\?return=%2Fexplore$/);
  await dave.page.getByRole('button', { name: `Fill in the form as ${DAVE}` }).click();
  await expect(dave.page.getByLabel('E-mail')).toHaveValue(DAVE);
  await dave.page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(dave.page).toHaveURL(/\/explore$/);
  await expect(dave.page.getByTestId('account-email')).toHaveText(DAVE);

  // Carol: signs in directly from her row.
  const carol = await freshPage(browser);
  await carol.page.goto('/explore');
  await carol.page.getByRole('button', { name: `Sign in as ${CAROL}` }).click();
  await expect(carol.page).toHaveURL(/\/explore$/);
  await expect(carol.page.getByTestId('account-email')).toHaveText(CAROL);

  const daveNodes = await graphNodes(dave.page);
  const carolNodes = await graphNodes(carol.page);
  const incident = daveNodes.find((n) => INCIDENT.test(n.title));
  const fraud = daveNodes.find((n) => FRAUD.test(n.title));
  expect(incident, 'the restricted incident issue is in dave’s graph').toBeTruthy();
  expect(fraud, 'the restricted fraud page is in dave’s graph').toBeTruthy();
  expect(carolNodes.length).toBeGreaterThan(0);
  expect(carolNodes.filter((n) => n.id.startsWith('jira:WEB-')).length).toBeGreaterThan(0);
  expect(carolNodes.filter((n) => n.id.startsWith('jira:PAY-'))).toEqual([]);
  expect(carolNodes.filter((n) => INCIDENT.test(n.title) || FRAUD.test(n.title))).toEqual([]);
  expect(carolNodes.map((n) => n.id)).not.toContain(incident!.id);
  expect(daveNodes.length).toBeGreaterThan(carolNodes.length);
  await screenshot(dave.page, 'graph-dave');
  await screenshot(carol.page, 'graph-carol');

  // The same question in chat.
  for (const who of [dave, carol]) {
    await who.page.getByRole('link', { name: 'Chat' }).click();
    await ask(who.page, QUESTION);
  }
  const daveTurn = dave.page.locator('app-chat-turn').last();
  const daveCited = await daveTurn
    .locator('app-source-card')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-document-id') ?? ''));
  expect(daveCited, 'dave’s answer cites the restricted issue').toContain(incident!.id);
  await expect(daveTurn.getByTestId('answer')).not.toBeEmpty();

  const carolTurn = carol.page.locator('app-chat-turn').last();
  const carolCited = await carolTurn
    .locator('app-source-card')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-document-id') ?? ''));
  expect(carolCited.filter((id) => id.startsWith('jira:PAY-'))).toEqual([]);
  expect(carolCited).not.toContain(incident!.id);
  expect(carolCited).not.toContain(fraud!.id);
  // Nothing restricted anywhere on her page (her own question aside).
  const carolText = (await carol.page.locator('body').innerText()).split(QUESTION).join(' ');
  expect(carolText).not.toMatch(INCIDENT);
  expect(carolText).not.toMatch(FRAUD);
  const incidentKey = incident!.id.replace(/^jira:/, '');
  expect(carolText).not.toMatch(new RegExp(`\\b${incidentKey}\\b`));
  await screenshot(dave.page, 'chat-dave');
  await screenshot(carol.page, 'chat-carol');

  // And her API says the same: the restricted issue does not exist for her.
  const carolApi = carol.page.request;
  const doc = await carolApi.get(`/documents/${encodeURIComponent(incident!.id)}`, {
    headers: { accept: 'application/json' },
  });
  expect(doc.status()).toBe(404);
  expect((await request.get('/graph?limit=5')).status()).toBe(401); // the suite's signed-out client

  expect([...dave.errors, ...carol.errors], 'uncaught errors in the pages').toEqual([]);
  await dave.context.close();
  await carol.context.close();
});

test('signing out returns to the sign-in page, and the API then answers 401', async ({
  page,
  request,
}) => {
  await page.goto('/');
  await page.getByRole('button', { name: `Sign in as ${BOB}` }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole('heading', { name: "Ask your team's knowledge base" })).toBeVisible();
  expect((await page.request.get('/graph?limit=5')).status()).toBe(200);
  const session = (await page.context().cookies()).find((c) => c.name === 'devkb_auth');
  expect(session, 'the session cookie').toBeTruthy();

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/signin$/);
  await expect(page.getByRole('heading', { name: 'Sign in to devkb' })).toBeVisible();
  await expect(page.getByTestId('account')).toHaveCount(0);

  const graph = await page.request.get('/graph?limit=5');
  expect(graph.status()).toBe(401);
  expect(((await graph.json()) as { detail: string }).detail).toMatch(/sign in/i);
  // The session is revoked on the server, not only forgotten by the browser.
  const replay = await request.get('/graph?limit=5', {
    headers: { cookie: `devkb_auth=${session!.value}` },
  });
  expect(replay.status()).toBe(401);

  // Back to a page: the sign-in page again.
  await page.goto('/explore');
  await expect(page).toHaveURL(/\/signin\?return=%2Fexplore$/);
});

test('an API token made in the app works for scripts until it is revoked', async ({
  page,
  request,
  baseURL,
}) => {
  await page.goto('/');
  await page.getByRole('button', { name: `Sign in as ${DAVE}` }).click();
  await expect(page.getByTestId('account-email')).toHaveText(DAVE);
  await page.getByRole('link', { name: 'API tokens' }).click();
  await expect(page).toHaveURL(/\/tokens$/);
  await expect(page.getByRole('heading', { name: 'API tokens', level: 1 })).toBeVisible();

  const name = `e2e script ${Date.now()}`;
  await page.getByLabel('New token').fill(name);
  await page.getByRole('button', { name: 'Create token' }).click();
  const token = (await page.getByTestId('token-value').innerText()).trim();
  expect(token.length).toBeGreaterThan(20);
  await expect(page.getByTestId('token-curl')).toHaveText(
    `curl -H "Authorization: Bearer ${token}" ${baseURL}/ask -d '{"question":"..."}' -H 'Content-Type: application/json'`,
  );
  const listed = page.getByRole('list', { name: 'Your tokens' }).getByRole('listitem');
  await expect(listed.filter({ hasText: name })).toHaveCount(1);
  await expect(page.getByRole('button', { name: 'Copy token' })).toBeVisible();
  await screenshot(page, 'tokens');

  // A script with the token (the `request` client here has no session cookie).
  const bearer = { Authorization: `Bearer ${token}` };
  const asked = await request.post('/ask', {
    headers: bearer,
    data: { question: 'What is WEB-1 about?' },
  });
  expect(asked.status(), await asked.text()).toBe(200);
  expect(((await asked.json()) as { answer: string }).answer).toBeTruthy();

  await page.getByRole('button', { name: `Revoke ${name}` }).click();
  await expect(listed.filter({ hasText: name })).toHaveCount(0);
  await expect(page.getByTestId('new-token')).toHaveCount(0);
  const after = await request.post('/ask', {
    headers: bearer,
    data: { question: 'What is WEB-1 about?' },
  });
  expect(after.status()).toBe(401);
});
