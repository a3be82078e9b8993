import { type Page } from '@playwright/test';

import { ask, expect, screenshot, test } from './fixtures';

/** A whole session, not one question: 15 questions in one page, on a desktop and a 360 px phone. */
const QUESTIONS = [
  'What is PAY-12 about?',
  'How do we retry failed webhooks?',
  'Why were customers charged twice in April?',
  'What is blocked?',
  'Which pull request fixed the webhook retries?',
  'Who worked on PAY-12?',
  'How many open bugs are there in PAY?',
  'What changed in the WEB project last month?',
  'Show me the onboarding handbook',
  'What does the payments service README say about deployment?',
  'How does payments-service decide whether a failed call to Meridian may be retried?',
  'What is WEB-7 waiting for?',
  'Which commits touched the retry policy?',
  'What are the open issues in WEB?',
  'How is idempotency handled for card payments?',
];

async function inViewport(page: Page, selector: string, what: string): Promise<void> {
  const box = await page.locator(selector).last().boundingBox();
  expect(box, `${what} is rendered`).not.toBeNull();
  const { width, height } = page.viewportSize()!;
  expect(box!.y, `${what}: top inside the viewport`).toBeGreaterThanOrEqual(0);
  expect(box!.y, `${what}: top inside the viewport`).toBeLessThan(height);
  expect(box!.x + box!.width, `${what} fits the width`).toBeLessThanOrEqual(width + 1);
  expect(box!.y + Math.min(box!.height, 1), `${what}`).toBeLessThanOrEqual(height);
}

for (const size of [
  { name: 'desktop', width: 1440, height: 900 },
  { name: 'phone', width: 360, height: 740 },
]) {
  test(`a 15-question conversation stays usable on a ${size.name} (${size.width}×${size.height})`, async ({
    page,
  }) => {
    test.setTimeout(180_000);
    await page.setViewportSize({ width: size.width, height: size.height });
    // start from an empty conversation (the admin's is kept between tests)
    expect((await page.request.post('/chat/clear')).ok()).toBe(true);
    await page.goto('/');
    await expect(
      page.getByRole('heading', { name: "Ask your team's knowledge base" }),
    ).toBeVisible();
    for (const [i, q] of QUESTIONS.entries()) {
      await ask(page, q);
      await expect(page.locator('app-chat-turn')).toHaveCount(i + 1);
      const turn = page.locator('app-chat-turn').last();
      await expect(turn.locator('.bubble p').first()).toHaveText(q);
      // the page itself never scrolls: only the conversation log does
      const doc = await page.evaluate(() => ({
        height: document.documentElement.scrollHeight,
        top: (document.scrollingElement ?? document.documentElement).scrollTop,
        view: window.innerHeight,
      }));
      expect(doc.height, `after question ${i + 1}: document height`).toBe(doc.view);
      expect(doc.top).toBe(0);
      await inViewport(page, 'header.shell-head', 'the top bar');
      await inViewport(page, '.filters', 'the source filters');
      await inViewport(page, 'form.composer textarea', 'the composer');
      await inViewport(page, 'app-chat-turn .bubble', "the newest question's start");
      await inViewport(page, 'app-chat-turn [data-testid="answer"]', "the newest answer's start");
      const answerTop = (await turn.getByTestId('answer').boundingBox())!.y;
      const logBox = (await page.locator('.log').boundingBox())!;
      expect(answerTop, 'the answer starts inside the log').toBeGreaterThanOrEqual(logBox.y - 1);
      expect(answerTop).toBeLessThan(logBox.y + logBox.height - 20);
    }
    await screenshot(page, `chat-long-${size.name}`, `docs/screenshots/chat-long-${size.name}.png`);
  });
}
