import { startDevkb } from './global-setup';
import { ask, expect, test } from './fixtures';

/**
 * The persistent mode (`DEVKB_CHAT_MEMORY=store`) in the browser: conversations are listed, reopened
 * after the page is reloaded and a new one started, renamed and deleted. Its own server (the suite's
 * runs the default, in-memory mode), without accounts: the app is the one-user app it was before
 * accounts — no sign-in page, no user menu.
 */
let server: { url: string; stop: () => Promise<void> };

test.beforeAll(async () => {
  test.setTimeout(6 * 60_000);
  server = await startDevkb({ DEVKB_CHAT_MEMORY: 'store' }, 'e2e-server-store.log');
});

test.afterAll(async () => {
  await server?.stop();
});

test('lists past conversations and reopens, renames and deletes them', async ({ page }) => {
  await page.context().clearCookies(); // the suite's sign-in is for the other server (same host)
  await page.goto(server.url + '/');
  await expect(page).toHaveURL(server.url + '/');
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
  await expect(page.getByTestId('account')).toHaveCount(0);
  await ask(page, 'What is PAY-12 about?');
  await page.getByRole('button', { name: 'New conversation' }).click();
  await expect(page.locator('app-chat-turn')).toHaveCount(0);
  await ask(page, 'How do we retry failed webhooks?');

  await page.reload();
  await expect(page.locator('app-chat-turn')).toHaveCount(1); // the current conversation came back
  await page.locator('.past summary').click();
  const past = page.locator('.past li');
  await expect(past).toHaveCount(2);
  await expect(past.first()).toContainText('How do we retry failed webhooks?'); // most recent first

  await past.getByRole('button', { name: 'What is PAY-12 about?', exact: true }).click();
  await expect(page.locator('app-chat-turn .bubble p').first()).toHaveText('What is PAY-12 about?');

  page.once('dialog', (d) => void d.accept('PAY-12 questions'));
  await past.getByRole('button', { name: 'Rename What is PAY-12 about?' }).click();
  await expect(past.getByRole('button', { name: 'PAY-12 questions', exact: true })).toBeVisible();
  const exported = await page.request.get(
    server.url +
      (await past.getByRole('link', { name: 'Export PAY-12 questions' }).getAttribute('href')),
  );
  expect(await exported.text()).toContain('# PAY-12 questions');

  await past.getByRole('button', { name: 'Delete PAY-12 questions' }).click();
  await expect(past).toHaveCount(1);
});
