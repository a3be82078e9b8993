import AxeBuilder from '@axe-core/playwright';
import type { APIRequestContext, Page } from '@playwright/test';

import { SIGNED_OUT, authStatus, demoUser, expect, screenshot, signIn, test } from './fixtures';

/**
 * The admin page (`/admin`, "People"): users, documents shared with everyone, the permission
 * sync. Tests start signed in as the admin alice (the fixtures' default); what they create is
 * taken back (documents unshared, the added user disabled) so the other specs see the demo as
 * it was.
 */
const CAROL = 'carol@acme.example'; // a member: Jira WEB issues only
const RESTRICTED = 'jira:PAY-90'; // a security-restricted issue carol cannot read
const documentUrl = (id: string) => `/documents/${encodeURIComponent(id)}`;

/** A fresh API client signed in as carol with the password the demo server publishes. */
async function carolApi(
  playwright: { request: { newContext: (o: object) => Promise<APIRequestContext> } },
  baseURL: string | undefined,
): Promise<APIRequestContext> {
  const carol = await playwright.request.newContext({ baseURL, storageState: SIGNED_OUT });
  const { password } = await demoUser(carol, (u) => u.email === CAROL);
  const res = await carol.post('/auth/login', { data: { email: CAROL, password } });
  expect(res.status(), `sign in as ${CAROL}: ${await res.text()}`).toBe(200);
  return carol;
}

async function carolReads(carol: APIRequestContext, id: string): Promise<number> {
  const res = await carol.get(documentUrl(id), { headers: { accept: 'application/json' } });
  return res.status();
}

async function openAdmin(page: Page): Promise<void> {
  await page.goto('/');
  await page.getByTestId('account').getByRole('link', { name: 'People' }).click();
  await expect(page).toHaveURL(/\/admin$/);
  await expect(page.getByRole('heading', { name: 'People', level: 1 })).toBeVisible();
}

test('an admin manages users: the demo people, a role refused for herself, a new user', async ({
  page,
  request,
}) => {
  const email = `e2e-admin-${Date.now()}@acme.example`;
  try {
    await openAdmin(page);
    const users = page.getByRole('table', { name: 'Users' });
    for (const u of (await authStatus(request)).demo_users) {
      const row = users.locator(`tr[data-email="${u.email}"]`);
      await expect(row).toBeVisible();
      await expect(row.getByRole('combobox', { name: `Role of ${u.email}` })).toHaveValue(u.role);
      await expect(row).toContainText('Password');
      await expect(row).toContainText('Active');
    }

    // The API refuses disabling yourself: its detail is shown.
    await page.getByRole('button', { name: 'Disable alice@acme.example' }).click();
    await expect(page.getByTestId('users-error')).toHaveText(/cannot disable yourself/);

    // A new member, then disabled again (the clean-up, through the page).
    const form = page.getByRole('form', { name: 'Add a user' });
    await form.getByLabel('E-mail').fill(email);
    await form.getByLabel('Name').fill('E2E Person');
    await form.getByLabel('Role').selectOption('member');
    await form.getByLabel('Initial password').fill('e2e-password-1');
    await form.getByRole('button', { name: 'Add user' }).click();
    const row = users.locator(`tr[data-email="${email}"]`);
    await expect(row).toContainText('E2E Person');
    await expect(row.getByRole('combobox', { name: `Role of ${email}` })).toHaveValue('member');
    await expect(page.getByTestId('users-error')).toHaveCount(0);
    await screenshot(page, 'admin');

    await row.getByRole('button', { name: `Disable ${email}` }).click();
    await expect(row).toContainText('Disabled');
    await expect(row.getByRole('button', { name: `Enable ${email}` })).toBeVisible();
    const login = await request.post('/auth/login', {
      data: { email, password: 'e2e-password-1' },
    });
    expect(login.status(), 'a disabled user cannot sign in').toBe(401);
  } finally {
    // whatever happened above: the added user stays disabled
    const res = await request.patch(`/admin/users/${encodeURIComponent(email)}`, {
      data: { disabled: true },
    });
    expect([200, 404]).toContain(res.status());
  }
});

test('sharing a restricted document with everyone lets a member read it until it is unshared', async ({
  page,
  request,
  playwright,
  baseURL,
}) => {
  const carol = await carolApi(playwright, baseURL);
  try {
    expect(await carolReads(carol, RESTRICTED), 'restricted before sharing').toBe(404);
    await openAdmin(page);
    const shared = page.getByRole('list', { name: 'Shared documents' });
    const box = page.getByLabel('Document id');

    // An unknown id: the API's 404 detail.
    await box.fill('jira:NOPE-404');
    await page.getByRole('button', { name: 'Share with everyone' }).click();
    await expect(page.getByTestId('shared-error')).toHaveText(/no such documents: jira:NOPE-404/);

    await box.fill(RESTRICTED);
    await page.getByRole('button', { name: 'Share with everyone' }).click();
    await expect(shared.locator(`li[data-document-id="${RESTRICTED}"]`)).toBeVisible();
    await expect(page.getByTestId('shared-error')).toHaveCount(0);
    await expect.poll(() => carolReads(carol, RESTRICTED), { message: 'shared' }).toBe(200);

    await page.getByRole('button', { name: `Unshare ${RESTRICTED}` }).click();
    await expect(shared.locator(`li[data-document-id="${RESTRICTED}"]`)).toHaveCount(0);
    await expect.poll(() => carolReads(carol, RESTRICTED), { message: 'unshared' }).toBe(404);
  } finally {
    await request.post('/admin/shared', { data: { document_ids: [RESTRICTED], shared: false } });
    await carol.dispose();
  }
});

test('"Sync permissions now" mirrors every source and shows the result', async ({ page }) => {
  await openAdmin(page);
  const sources = page
    .getByRole('list', { name: 'Permission sync by source' })
    .getByRole('listitem');
  await expect(sources.first()).toBeVisible();
  const synced = page.waitForResponse(
    (r) => r.url().endsWith('/admin/permissions/sync') && r.request().method() === 'POST',
  );
  await page.getByRole('button', { name: 'Sync permissions now' }).click();
  const body = (await (await synced).json()) as { sources: { source: string; state: string }[] };
  expect(body.sources.length).toBeGreaterThan(0);
  await expect(page.getByTestId('sync-result')).toContainText('Synced.');
  await expect(sources).toHaveCount(body.sources.length);
  for (const s of body.sources) {
    expect(s.state, `${s.source} synced`).toBe('ok');
    await expect(page.getByTestId('sync-result')).toContainText(`${s.source}: ok`);
    await expect(page.locator(`li[data-source="${s.source}"] [data-testid=perm-state]`)).toHaveText(
      'ok',
    );
  }
});

test('the admin page fits a phone screen and has no serious accessibility violation', async ({
  page,
}) => {
  await page.setViewportSize({ width: 360, height: 780 });
  await page.goto('/admin');
  await expect(page.getByRole('heading', { name: 'People', level: 1 })).toBeVisible();
  await expect(page.locator('tr[data-email="alice@acme.example"]')).toBeVisible();
  await expect(page.locator('li[data-source]').first()).toBeVisible();
  const overflow = await page.evaluate(() => {
    const root = document.scrollingElement ?? document.documentElement;
    const wide = [...document.querySelectorAll<HTMLElement>('body *')]
      .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1)
      .slice(0, 5)
      .map((el) => `${el.tagName.toLowerCase()}.${el.className}`);
    return { scroll: root.scrollWidth, client: root.clientWidth, wide };
  });
  expect(overflow.wide, JSON.stringify(overflow)).toEqual([]);
  expect(overflow.scroll, JSON.stringify(overflow)).toBeLessThanOrEqual(overflow.client);
  await screenshot(page, 'admin-phone');
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

test.describe('as a member', () => {
  test.use({ storageState: SIGNED_OUT });

  test('carol sees no People link, and /admin shows no admin content', async ({ page }) => {
    await signIn(page.request, (u) => u.email === CAROL);
    await page.goto('/');
    await expect(page.getByTestId('account-email')).toHaveText(CAROL);
    await expect(page.getByTestId('account').getByRole('link', { name: 'People' })).toHaveCount(0);

    await page.goto('/admin');
    await expect(page.getByTestId('admins-only')).toContainText('Admins only');
    await expect(page.getByRole('table')).toHaveCount(0);
    await expect(page.getByRole('heading', { name: 'Users' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Sync permissions now' })).toHaveCount(0);
    await expect(page.getByText('alice@acme.example')).toHaveCount(0);
    // and the API agrees
    expect((await page.request.get('/admin/users')).status()).toBe(403);
  });
});

test('an admin names a reviewer for a project, who can then verify answers about it', async ({
  page,
  playwright,
  baseURL,
}) => {
  const bob = await playwright.request.newContext({ baseURL, storageState: SIGNED_OUT });
  const { password } = await demoUser(bob, (u) => u.email === 'bob@acme.example');
  expect(
    (await bob.post('/auth/login', { data: { email: 'bob@acme.example', password } })).status(),
  ).toBe(200);
  const verify = async () =>
    (
      await bob.post('/memories/answers', {
        data: {
          question: 'Which release added idempotency keys?',
          answer: 'Release 2026.6 added idempotency keys for POST /v1/payments.',
          citations: ['jira:PAY-12'],
        },
      })
    ).status();
  expect(await verify()).toBe(403); // a member, no reviewer yet

  await openAdmin(page);
  const card = page.getByTestId('reviewers-card');
  await expect(card.getByRole('heading', { name: 'Reviewers' })).toBeVisible();
  await card.getByLabel('Kind').selectOption('project');
  await card.getByLabel('Key').fill('pay');
  await card.getByLabel('Reviewers', { exact: true }).fill('bob@acme.example');
  await card.getByRole('button', { name: 'Set reviewers' }).click();
  await expect(card.getByTestId('reviewers-note')).toContainText(
    'Jira project PAY: reviewed by bob@acme.example',
  );
  await expect(card.locator('[data-scope="project:PAY"]')).toContainText('bob@acme.example');
  await card.evaluate((el) => el.scrollIntoView({ block: 'center' }));
  await screenshot(page, 'admin-reviewers', 'docs/screenshots/admin-reviewers.png');

  expect(await verify()).toBe(201); // at once

  // an unknown person is refused with the reason; removing bob leaves admins alone
  await card.getByLabel('Key').fill('WEB');
  await card.getByLabel('Reviewers', { exact: true }).fill('nobody@acme.example');
  await card.getByRole('button', { name: 'Set reviewers' }).click();
  await expect(card.getByTestId('reviewers-error')).toContainText(
    'no such user: nobody@acme.example',
  );
  await card
    .getByRole('button', { name: 'Remove bob@acme.example as a reviewer of Jira project PAY' })
    .click();
  await expect(card.getByTestId('reviewers-note')).toContainText('admins alone review it now');
  await expect(card.locator('[data-scope="project:PAY"]')).toHaveCount(0);
  expect(await verify()).toBe(403);
  await bob.dispose();
});
