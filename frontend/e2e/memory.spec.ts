import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';

import { SIGNED_OUT, ask, expect, screenshot, signIn, test } from './fixtures';

/**
 * Team memory in the web app (issue 59): "Remember" on an answer, a correction on a thumbs-down
 * proposed to the team, a reviewer accepting it on the Memory page, correcting (a new version) and
 * forgetting, search "as of" a date — as bob (a member) and alice (the admin) of the demo, on the
 * real server; on a desktop and a 360 px phone.
 */
test.use({ storageState: SIGNED_OUT });

const BOB = 'bob@acme.example';
const ALICE = 'alice@acme.example';
const QUESTION = 'When does the payments freeze start?';

async function as(page: Page, email: string): Promise<void> {
  await signIn(page.request, (u) => u.email === email);
}

/** Forget every memory the signed-in person may forget, so a test starts from none of theirs. */
async function forgetAll(page: Page): Promise<void> {
  const res = await page.request.get('/memories?limit=1000');
  expect(res.status()).toBe(200);
  for (const m of (await res.json()) as { id: string; superseded_by: string }[]) {
    if (m.superseded_by) continue; // forgotten with its newest version
    await page.request.delete(`/memories/${encodeURIComponent(m.id)}`);
  }
}

async function noOverflow(page: Page): Promise<void> {
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

async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.length} × ${v.nodes[0]?.target.join(' ')}`);
}

test('a member remembers an answer, corrects it on the Memory page, finds it as of a date and forgets it', async ({
  page,
}) => {
  await as(page, ALICE);
  await forgetAll(page);
  await as(page, BOB);
  await forgetAll(page);
  await page.goto('/');
  await ask(page, QUESTION);
  const turn = page.locator('app-chat-turn').last();
  await turn.getByRole('button', { name: 'Remember' }).click();
  const form = turn.locator('form.remember');
  await expect(form.getByText('Only you will see it.')).toBeVisible(); // a member: private
  await form.getByRole('textbox').fill('The payments freeze starts on 1 December');
  await form.getByRole('button', { name: 'Remember' }).click();
  await expect(turn.getByTestId('memory-note')).toContainText('Remembered for you.');

  await turn.getByRole('link', { name: 'Open Memory' }).click();
  await expect(page).toHaveURL(/\/memory$/);
  await expect(page.getByRole('link', { name: 'Memory', exact: true })).toHaveAttribute(
    'aria-current',
    'page',
  );
  const item = page.getByTestId('memory');
  await expect(item).toHaveCount(1);
  await expect(item).toContainText('The payments freeze starts on 1 December');
  await expect(item).toContainText('private · told by bob on');

  // correct: a new version; the old one stays in its history
  await item.getByRole('button', { name: 'Correct' }).click();
  await item.getByRole('textbox').fill('The payments freeze starts on 15 December');
  await item.getByRole('button', { name: 'Save correction' }).click();
  await expect(page.getByRole('status')).toContainText('Corrected');
  await expect(item).toHaveCount(1);
  await expect(item).toContainText('15 December');
  await page.getByRole('button', { name: 'Show 1 earlier version' }).click();
  await expect(page.locator('[data-testid=memory][data-status=superseded]')).toContainText(
    '1 December',
  );

  // search now, and as of a day before any of it was said
  await page.getByRole('searchbox', { name: 'Search memories' }).fill('payments freeze');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await expect(page.getByTestId('search-summary')).toContainText('1 memory true now');
  await expect(item).toContainText('15 December');
  await page.getByLabel('as of').fill('2020-01-01');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await expect(page.getByTestId('search-summary')).toContainText('0 memories true on 1 Jan 2020');
  await page.getByRole('button', { name: 'Clear' }).click();
  await screenshot(page, 'memory', 'docs/screenshots/memory.png');

  // forget it and its history
  page.once('dialog', (d) => void d.accept());
  await item.getByRole('button', { name: /^Forget/ }).click();
  await expect(page.getByTestId('memory-empty')).toContainText('not asked devkb to remember');
});

test('a correction on a thumbs-down is proposed to the team; the admin accepts it and answers cite it', async ({
  page,
}) => {
  await as(page, ALICE);
  await forgetAll(page);
  await as(page, BOB);
  await page.goto('/');
  await ask(page, QUESTION);
  const turn = page.locator('app-chat-turn').last();
  await turn.getByRole('button', { name: 'Unhelpful answer' }).click();
  await turn.getByLabel('What was wrong with this answer?').fill('It quotes a welcome page');
  await turn
    .getByLabel('The right answer is')
    .fill('The payments freeze starts on 15 December and ends on 5 January');
  await screenshot(page, 'memory-correction', 'docs/screenshots/memory-correction.png');
  await turn.getByRole('button', { name: 'Send feedback' }).click();
  await expect(turn.getByTestId('memory-note')).toContainText('proposed to the team');

  // bob sees his correction among the team's memories as a proposal; alice reviews it
  await page.goto('/memory?tab=team');
  await expect(page.getByTestId('memory')).toHaveAttribute('data-status', 'proposed');
  await expect(page.getByTestId('memory')).not.toContainText('Accept and verify'); // not a reviewer
  await as(page, ALICE);
  await page.goto('/memory?tab=review');
  const proposed = page.getByTestId('memory');
  await expect(proposed).toHaveCount(1);
  await expect(proposed).toHaveAttribute('data-status', 'proposed');
  await expect(proposed).toContainText('team · told by bob');
  await proposed.getByRole('button', { name: 'Accept and verify' }).click();
  await expect(page.getByTestId('memory-empty')).toContainText('Nothing to review.');
  await page.getByRole('tab', { name: 'Team' }).click();
  await expect(page.getByTestId('memory')).toContainText('verified by alice on');

  // a question now cites the team memory, labelled as memory
  await page.goto('/');
  await ask(page, QUESTION);
  const answer = page.locator('app-chat-turn').last();
  const card = answer.locator('app-source-card[data-type=MEMORY]').first();
  await expect(card).toContainText('Memory');
  await expect(card).toContainText('15 December');
  await card.evaluate((el) => el.scrollIntoView({ block: 'center' }));
  await screenshot(page, 'memory-citation', 'docs/screenshots/memory-citation.png');
  await forgetAll(page);
});

test('the Memory page on a 360 px phone: no overflow, no serious accessibility violation', async ({
  page,
}) => {
  await as(page, ALICE);
  await forgetAll(page);
  for (const text of [
    'The staging database is reset every Sunday at 02:00 UTC',
    'CI runs on GitHub Actions; we no longer use Jenkins',
  ]) {
    const res = await page.request.post('/memories', { data: { text, scope: 'team' } });
    expect(res.status()).toBe(201);
  }
  await page.goto('/memory?tab=team');
  await expect(page.getByTestId('memory')).toHaveCount(2);
  expect(await seriousViolations(page)).toEqual([]);
  await page.setViewportSize({ width: 360, height: 740 });
  await page.goto('/memory?tab=team');
  await expect(page.getByRole('heading', { name: 'Memory', level: 1 })).toBeVisible();
  await expect(page.getByTestId('memory')).toHaveCount(2);
  await noOverflow(page);
  await screenshot(page, 'memory-phone', 'docs/screenshots/memory-phone.png');
  await page.goto('/');
  await ask(page, 'Is CI on Jenkins?');
  const turn = page.locator('app-chat-turn').last();
  await turn.getByRole('button', { name: 'Remember' }).click();
  await expect(turn.locator('form.remember select')).toBeVisible(); // an admin chooses the scope
  await noOverflow(page);
  await forgetAll(page);
});

test('an admin verifies an answer: the same question gets it first, marked verified, and it is listed to review before it expires', async ({
  page,
}) => {
  await as(page, ALICE);
  await forgetAll(page);
  const question = 'Who approves a release of payments-service?';
  await page.goto('/');
  await ask(page, question);
  const turn = page.locator('app-chat-turn').last();
  await turn.getByRole('button', { name: 'Verify' }).click();
  const form = turn.locator('form.verify');
  await form
    .getByRole('textbox')
    .fill('A release of payments-service is approved by the on-call lead and one reviewer.');
  await form.getByLabel('Expires in').fill('5');
  await screenshot(page, 'memory-verify', 'docs/screenshots/memory-verify.png');
  await form.getByRole('button', { name: 'Verify' }).click();
  await expect(turn.getByTestId('memory-note')).toContainText('Verified until');

  // the same question, asked again: the verified answer first, with its badge and memory citation
  await ask(page, question);
  const again = page.locator('app-chat-turn').last();
  await expect(again.getByTestId('verified-badge')).toContainText('Verified by alice on');
  await expect(again.getByTestId('answer')).toContainText('on-call lead and one reviewer');
  await expect(again.locator('app-source-card[data-type=MEMORY]')).toHaveCount(1);
  await expect(again.getByRole('button', { name: 'Verify' })).toHaveCount(0);
  await again.evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await screenshot(page, 'memory-verified-answer', 'docs/screenshots/memory-verified-answer.png');

  // expiring within 7 days: listed for review; verified again for 90 days, it leaves the list
  await page.goto('/memory?tab=expiring');
  await page.getByLabel('Verified answers that expire within').selectOption('7 days');
  const listed = page.getByTestId('verified-answer');
  await expect(listed).toHaveCount(1);
  await expect(listed).toContainText(question);
  await expect(listed).toContainText('expires on');
  await screenshot(page, 'memory-expiring', 'docs/screenshots/memory-expiring.png');
  await page.setViewportSize({ width: 360, height: 740 });
  await noOverflow(page);
  await screenshot(page, 'memory-expiring-phone', 'docs/screenshots/memory-expiring-phone.png');
  await listed.getByRole('button', { name: 'Verify again for 90 days' }).click();
  await expect(page.getByTestId('memory-empty')).toContainText('No verified answer expires soon');

  // a member has neither the tab nor the button
  await as(page, BOB);
  await page.goto('/memory?tab=expiring');
  await expect(page.getByRole('tab', { name: 'Expiring / stale' })).toHaveCount(0);
  await expect(page.getByRole('tab', { name: 'Mine' })).toHaveAttribute('aria-selected', 'true');
  await as(page, ALICE);
  await forgetAll(page);
});
