import { test as base, expect, type APIRequestContext, type Page } from '@playwright/test';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
export const SCREENSHOTS = join(ROOT, 'artifacts', 'screenshots');

export interface DemoUser {
  email: string;
  password: string;
  role: string;
  sees: string;
}

export interface AuthStatus {
  accounts: boolean;
  user: { email: string; name: string; role: string } | null;
  demo_users: DemoUser[];
}

/** `GET /auth/status` (open on every server). */
export async function authStatus(request: APIRequestContext, origin = ''): Promise<AuthStatus> {
  const res = await request.get(`${origin}/auth/status`);
  expect(res.status(), 'GET /auth/status').toBe(200);
  return (await res.json()) as AuthStatus;
}

/** A demo user (passwords come from the demo server's /auth/status, never from the tests). */
export async function demoUser(
  request: APIRequestContext,
  match: (u: DemoUser) => boolean,
  origin = '',
): Promise<DemoUser> {
  const users = (await authStatus(request, origin)).demo_users;
  const user = users.find(match);
  if (!user) throw new Error(`no such demo user in ${JSON.stringify(users.map((u) => u.email))}`);
  return user;
}

/** Signs `request` (a page's `page.request` shares the browser's cookies) in as a demo user. */
export async function signIn(
  request: APIRequestContext,
  match: (u: DemoUser) => boolean,
  origin = '',
): Promise<DemoUser> {
  const user = await demoUser(request, match, origin);
  const res = await request.post(`${origin}/auth/login`, {
    data: { email: user.email, password: user.password },
  });
  expect(res.status(), `sign in as ${user.email}: ${await res.text()}`).toBe(200);
  return user;
}

export const isAdmin = (u: DemoUser) => u.role === 'admin';

/**
 * `baseURL` is the server global-setup started (or DEVKB_E2E_URL); pages fail on uncaught errors.
 * On a server with accounts (the suite's runs the demo's people) every test starts signed in as
 * the admin — once per worker, the session in `storageState` for both `page` and `request`. A spec
 * that wants to start signed out uses `test.use({ storageState: SIGNED_OUT })`.
 */
export const test = base.extend<{ errors: string[] }, { adminState: StorageState | undefined }>({
  // Playwright's fixture signature: the first argument must be a destructuring pattern
  // eslint-disable-next-line no-empty-pattern
  baseURL: async ({}, use) => use(process.env['DEVKB_E2E_URL']),
  adminState: [
    async ({ playwright }, use) => {
      const request = await playwright.request.newContext({
        baseURL: process.env['DEVKB_E2E_URL'],
      });
      let state: StorageState | undefined;
      if ((await authStatus(request)).accounts) {
        await signIn(request, isAdmin);
        state = await request.storageState();
      }
      await request.dispose();
      await use(state);
    },
    { scope: 'worker' },
  ],
  storageState: async ({ adminState }, use) => use(adminState),
  errors: [
    async ({ page }, use) => {
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await use(errors);
      expect(errors, 'uncaught errors in the page').toEqual([]);
    },
    { auto: true },
  ],
});
export { expect };

type StorageState = Awaited<ReturnType<APIRequestContext['storageState']>>;
export const SIGNED_OUT: StorageState = { cookies: [], origins: [] };

export async function screenshot(page: Page, name: string, alsoTo?: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path });
  if (alsoTo) {
    mkdirSync(resolve(ROOT, alsoTo, '..'), { recursive: true });
    copyFileSync(path, resolve(ROOT, alsoTo));
  }
}

/** Asks a question in the chat panel and waits until the streamed answer is done. */
export async function ask(page: Page, question: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Your question' });
  await box.fill(question);
  const streamed = page.waitForResponse(
    (r) => r.url().endsWith('/ask/stream') && r.request().method() === 'POST',
  );
  await box.press('Enter');
  const response = await streamed;
  expect(response.status()).toBe(200);
  expect(response.headers()['content-type']).toContain('text/event-stream');
  const turn = page.locator('app-chat-turn').last();
  await expect(turn.locator('.answer')).toHaveAttribute('aria-busy', 'false', { timeout: 60_000 });
}
