import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';

import { ask, expect, screenshot, test } from './fixtures';

/**
 * The knowledge-gaps page (`/gaps`, admins only): questions the demo's sources do not answer,
 * asked in the chat, are listed by topic (the suite's server keeps chat history in memory, so
 * only the questions' key terms are recorded — the page says so). axe-core finds nothing
 * serious; the page fits a 360 px phone.
 */
const UNANSWERABLE = [
  'How do we configure kubernetes autoscaling for the GPU cluster?',
  'What is our kubernetes autoscaling policy for GPU nodes?',
];

async function openGaps(page: Page): Promise<void> {
  await page.goto('/');
  await page.getByTestId('account').getByRole('link', { name: 'Gaps' }).click();
  await expect(page).toHaveURL(/\/gaps$/);
  await expect(page.getByRole('heading', { name: 'Knowledge gaps', level: 1 })).toBeVisible();
}

test('questions answered "not found" in the chat are listed on the gaps page, by topic', async ({
  page,
}) => {
  await page.goto('/');
  for (const question of UNANSWERABLE) {
    await ask(page, question);
    await expect(page.locator('app-chat-turn').last()).toContainText('does not say');
  }
  await openGaps(page);
  const topic = page
    .getByTestId('gap-topic')
    .filter({ has: page.getByRole('heading', { name: /autoscal/ }) });
  await expect(topic).toHaveCount(1);
  await expect(topic.getByRole('heading')).toContainText('gpu');
  const count = Number(await topic.locator('.count').textContent());
  expect(count).toBeGreaterThanOrEqual(UNANSWERABLE.length);
  await expect(topic).toContainText('not found');
  await expect(page.getByTestId('gaps-privacy')).toBeVisible(); // key terms only, by default
  await page.getByTestId('gaps-kind').selectOption('thumbs_down');
  await expect(topic).toHaveCount(0);
  await page.getByTestId('gaps-kind').selectOption('not_found');
  await expect(topic).toHaveCount(1);
  await screenshot(page, 'gaps', 'docs/screenshots/gaps.png');
});

test('the gaps page has no serious accessibility violation and fits 360 px', async ({ page }) => {
  await openGaps(page);
  await page.waitForLoadState('networkidle');
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations.filter(
    (v) => v.impact === 'serious' || v.impact === 'critical',
  );
  expect(
    serious.map(
      (v) => `${v.id} (${v.impact}): ${v.nodes.length} × ${v.nodes[0]?.target.join(' ')}`,
    ),
  ).toEqual([]);

  await page.setViewportSize({ width: 360, height: 740 });
  await page.goto('/gaps');
  await page.waitForLoadState('networkidle');
  await expect(page.getByRole('heading', { name: 'Knowledge gaps', level: 1 })).toBeVisible();
  const overflow = await page.evaluate(() => {
    const root = document.scrollingElement ?? document.documentElement;
    const wide = [...document.querySelectorAll<HTMLElement>('body *')]
      .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1)
      .slice(0, 5)
      .map((el) => `${el.tagName.toLowerCase()}.${el.className}`);
    return { scroll: root.scrollWidth, client: root.clientWidth, wide };
  });
  expect(overflow.scroll, JSON.stringify(overflow)).toBeLessThanOrEqual(overflow.client);
  await screenshot(page, 'gaps-phone', 'docs/screenshots/gaps-phone.png');
});
