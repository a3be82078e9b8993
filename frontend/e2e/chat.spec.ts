import { ask, expect, screenshot, test } from './fixtures';

const QUESTION =
  'How does payments-service decide whether a failed call to Meridian may be retried?';

test('asks a question and streams a cited answer; a citation leads to the document in the graph', async ({
  page,
}) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: "Ask your team's knowledge base" })).toBeVisible();

  // Remember whether the progress line ("Searching…", "Writing…") was ever shown.
  await page.evaluate(() => {
    const w = window as unknown as { sawStage: boolean };
    w.sawStage = false;
    new MutationObserver(
      () => (w.sawStage ||= !!document.querySelector('app-chat-turn .stage')),
    ).observe(document.body, {
      subtree: true,
      childList: true,
    });
  });
  const stream = page.waitForResponse((r) => r.url().endsWith('/ask/stream'));
  await ask(page, QUESTION);
  const body = await (await stream).text();
  expect(body.match(/^event: token$/gm)?.length ?? 0).toBeGreaterThan(1);
  expect(body).toMatch(/^event: done$/m);
  expect(await page.evaluate(() => (window as unknown as { sawStage: boolean }).sawStage)).toBe(
    true,
  );

  const turn = page.locator('app-chat-turn').last();
  await expect(turn.locator('.bubble p').first()).toHaveText(QUESTION);
  await turn.getByText(/How this answer was found/).click(); // the steps, in plain words, behind a disclosure
  const steps = turn.getByRole('list', { name: 'Steps taken' }).locator('li');
  await expect(steps.first()).toBeVisible();
  expect(await steps.allInnerTexts()).not.toContainEqual(expect.stringMatching(/[{[]"/)); // no raw JSON
  const answer = turn.getByTestId('answer');
  await expect(answer).not.toBeEmpty();

  const cards = turn.locator('app-source-card');
  expect(await cards.count()).toBeGreaterThan(0);
  const cite = answer.locator('a.cite').first();
  await expect(cite).toBeVisible();
  await turn.evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await screenshot(page, 'chat');

  // [n] brings its source card into focus …
  const n = Number((await cite.getAttribute('data-cite')) ?? '1');
  await cite.click();
  const card = cards.nth(n - 1);
  await expect(card).toBeFocused();
  const docId = await card.getAttribute('data-document-id');
  const title = (await card.locator('.title').innerText()).replace(/^Source \d+:\s*/, '').trim();

  // … and "Show in graph" lands on that document, selected, with its details.
  await card.getByRole('link', { name: 'Show in graph' }).click();
  await expect(page).toHaveURL(/\/explore\?focus=/);
  const panel = page.getByTestId('document-panel');
  await expect(panel.getByRole('heading', { level: 2 })).toHaveText(title);
  await expect(panel.locator('.id')).toHaveText(docId!);
  const node = page.locator(`.gnode[data-id="${docId}"]`);
  await expect(node).toHaveClass(/selected/);
  await expect(node).toBeInViewport();
});

test('a source filter is sent with the question and respected by the answer', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Jira' }).click();
  await page.getByRole('button', { name: 'Confluence' }).click();
  for (const name of ['Files', 'Web', 'Upload']) {
    await page.getByRole('button', { name, exact: true }).click();
  }
  await expect(page.getByRole('button', { name: 'Jira' })).toHaveAttribute('aria-pressed', 'false');
  await expect(page.getByText('Searching only GitHub.')).toBeVisible();

  const request = page.waitForRequest((r) => r.url().endsWith('/ask/stream'));
  await ask(page, 'How are retries of failed Meridian calls implemented?');
  expect((await request).postDataJSON()).toMatchObject({ sources: ['github'] });

  const turn = page.locator('app-chat-turn').last();
  await expect(turn.getByText('Searched in: GitHub')).toBeVisible();
  const types = await turn
    .locator('app-source-card')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-type')));
  expect(types.length).toBeGreaterThan(0);
  expect(new Set(types)).toEqual(new Set(['GITHUB']));
});

test('the conversation is restored after a reload, and can be cleared', async ({ page }) => {
  await page.goto('/');
  await ask(page, 'What is PAY-12 about?');
  const before = await page.locator('app-chat-turn').last().getByTestId('answer').innerText();

  await page.reload();
  const turn = page.locator('app-chat-turn').last();
  await expect(turn.locator('.bubble p').first()).toHaveText('What is PAY-12 about?');
  await expect(turn.getByTestId('answer')).toHaveText(before);
  expect(await turn.locator('app-source-card').count()).toBeGreaterThan(0);

  await page.getByRole('button', { name: 'Clear conversation' }).click();
  await expect(page.locator('app-chat-turn')).toHaveCount(0);
  await page.reload();
  await expect(page.getByRole('heading', { name: "Ask your team's knowledge base" })).toBeVisible();
  await expect(page.locator('app-chat-turn')).toHaveCount(0);
});

test('a short question after PAY-12 is a new question: "What is blocked?" lists the blocked issues', async ({
  page,
}) => {
  await page.goto('/');
  await ask(page, 'What is PAY-12 about?');
  const first = page.locator('app-chat-turn').last();
  // the description, not just its metadata line
  await expect(first.getByTestId('answer')).toContainText('Idempotency');
  await expect(first.getByTestId('answer')).not.toContainText('Status:');

  await ask(page, 'What is blocked?');
  const second = page.locator('app-chat-turn').last();
  const answer = second.getByTestId('answer');
  await expect(answer).toContainText(/\d+ issues? (is|are) blocked/);
  // the blocked issues of the demo workspace, each with what it waits for
  await expect(answer).toContainText('WEB-7');
  await expect(answer).toContainText('depends on PAY-20');
  const ids = await second
    .locator('app-source-card')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-document-id')));
  expect(ids.length).toBeGreaterThan(1);
  expect(ids).not.toEqual(['jira:PAY-12']);
  expect(ids).not.toContain('jira:PAY-12');
});

test('the composer shows its length and the limit, says when a question is too long, and hints at a language model', async ({
  page,
}) => {
  await page.goto('/');
  const box = page.getByRole('textbox', { name: 'Your question' });
  await box.fill('x'.repeat(2100)); // a long paste is not cut silently
  await expect(page.locator('#composer-count')).toContainText('2100 / 2000');
  await expect(page.locator('#composer-count')).toContainText('too long');
  await expect(page.getByRole('button', { name: 'Ask' })).toBeDisabled();
  await expect(page.getByText(/Extractive mode: answers quote the sources/)).toBeVisible();
  await box.fill('What is PAY-12 about?');
  await expect(page.getByRole('button', { name: 'Ask' })).toBeEnabled();
});

test('an answer can be rated; thumbs-down asks why, and the reason is stored with the vote', async ({
  page,
}) => {
  await page.goto('/');
  await ask(page, 'How do we retry failed webhooks?');
  const turn = page.locator('app-chat-turn').last();
  // the thumbs are drawn as SVG, not emoji (which render as empty boxes without an emoji font)
  await expect(
    turn.getByRole('button', { name: 'Helpful answer', exact: true }).locator('svg'),
  ).toBeVisible();
  await turn.getByRole('button', { name: 'Unhelpful answer' }).click();
  await expect(turn.getByRole('button', { name: 'Unhelpful answer' })).toHaveAttribute(
    'aria-pressed',
    'true',
  );
  const reason = turn.getByRole('textbox', { name: /What was wrong with this answer/ });
  await expect(reason).toBeFocused();
  await reason.fill('It cites the retry policy page but not the commit that changed it.');
  const stored = page.waitForResponse(
    (r) => r.url().endsWith('/feedback') && r.request().method() === 'POST',
  );
  await turn.getByRole('button', { name: 'Send feedback' }).click();
  const response = await stored;
  expect(response.status()).toBe(201);
  expect(response.request().postDataJSON()).toMatchObject({
    question: 'How do we retry failed webhooks?',
    rating: 'down',
    comment: 'It cites the retry policy page but not the commit that changed it.',
  });
  await expect(turn.getByRole('status').filter({ hasText: 'saved' })).toBeVisible();
  await expect(reason).toHaveCount(0);
  // thumbs-up is stored at once, without a reason
  const up = page.waitForResponse((r) => r.url().endsWith('/feedback'));
  await turn.getByRole('button', { name: 'Helpful answer', exact: true }).click();
  expect((await up).request().postDataJSON()).toMatchObject({ rating: 'up', comment: null });
});

test('each new answer comes into view, also after several turns', async ({ page }) => {
  await page.goto('/');
  for (const q of [
    'What is PAY-12 about?',
    'How do we retry failed webhooks?',
    'Why were customers charged twice in April?',
  ]) {
    await ask(page, q);
    const question = page.locator('app-chat-turn').last().locator('.bubble p').first();
    await expect(question).toHaveText(q);
    await expect(question).toBeInViewport();
    await expect(page.locator('app-chat-turn').last().getByTestId('answer')).toBeInViewport();
  }
});
