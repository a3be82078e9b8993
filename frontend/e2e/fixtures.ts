import { test as base, expect, type Page } from '@playwright/test';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
export const SCREENSHOTS = join(ROOT, 'artifacts', 'screenshots');

/** `baseURL` is the server global-setup started (or DEVKB_E2E_URL); pages fail on uncaught errors. */
export const test = base.extend<{ errors: string[] }>({
  // Playwright's fixture signature: the first argument must be a destructuring pattern
  // eslint-disable-next-line no-empty-pattern
  baseURL: async ({}, use) => use(process.env['DEVKB_E2E_URL']),
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
