import type { Page } from '@playwright/test';

import { SIGNED_OUT, ask, expect, screenshot, signIn, test } from './fixtures';

/**
 * Issue 61's graph and phone polish, in the browser on the real server: a document the reader may
 * not open is a helpful message with ways back; the header's model pill explains itself in a
 * sentence; the Sources page's counts add up and say nothing of chunks.
 */
test.use({ storageState: SIGNED_OUT });

const CAROL = 'carol@acme.example'; // Jira WEB issues only
const ALICE = 'alice@acme.example';

async function as(page: Page, email: string): Promise<void> {
  await signIn(page.request, (u) => u.email === email);
}

for (const size of [
  { name: 'desktop', width: 1440, height: 900 },
  { name: 'phone', width: 360, height: 740 },
]) {
  test(`a document carol may not read is a message with a way back (${size.name})`, async ({
    page,
  }) => {
    await page.setViewportSize({ width: size.width, height: size.height });
    await as(page, CAROL);
    await page.goto('/');
    await page.goto('/explore?focus=jira:PAY-12');
    const box = page.getByTestId('missing-document');
    await expect(box).toContainText('This document is not one you can open.');
    await expect(box).toContainText('ask an admin');
    await expect(box).not.toContainText('No document with id');
    const inside = await box.evaluate((el) => {
      const r = el.getBoundingClientRect();
      return r.left >= 0 && r.right <= window.innerWidth;
    });
    expect(inside).toBe(true);
    await screenshot(
      page,
      `graph-not-yours-${size.name}`,
      `docs/screenshots/graph-not-yours-${size.name}.png`,
    );
    await box.getByRole('button', { name: 'Go back' }).click();
    await expect(page).toHaveURL(/\/$/);
    await page.goto('/explore?focus=jira:PAY-12');
    await page.getByRole('button', { name: 'Show the whole graph' }).click();
    await expect(page).toHaveURL(/\/explore$/);
    await expect(page.getByTestId('missing-document')).toHaveCount(0);
    await expect(page.locator('.gnode').first()).toBeVisible();
  });
}

test('the model pill explains itself in a sentence; source counts add up without chunks', async ({
  page,
}) => {
  await as(page, ALICE);
  await page.goto('/sync');
  const pill = page.locator('.server .pill').nth(1);
  await expect(pill).toHaveAttribute('title', /^No language model is set up/);
  const cards = page.locator('li.card');
  await expect(cards.first().locator('.counts')).toBeVisible();
  await expect(page.locator('.counts')).not.toContainText(['chunks']);
  for (const card of await page.locator('.counts').all()) {
    const items = Object.fromEntries(
      (await card.locator('li').allInnerTexts()).map((t) => {
        const [n, ...words] = t.trim().split(/\s+/);
        return [words.join(' '), Number(n)];
      }),
    );
    const total = items['documents'] ?? items['document'];
    expect(total, JSON.stringify(items)).toBe(items['new or updated'] + items['unchanged']);
  }
});

test('graph search results lead with titles, never a bare id', async ({ page }) => {
  await as(page, ALICE);
  await page.goto('/explore');
  await page.getByRole('combobox', { name: 'Find a document' }).fill('payments');
  const options = page.getByRole('option');
  await expect(options.first()).toBeVisible();
  const rows = await options.evaluateAll((els) =>
    els.map((e) => ({
      title: e.querySelector('.title')?.textContent?.trim() ?? '',
      key: e.querySelector('.key')?.textContent?.trim() ?? '',
    })),
  );
  expect(rows.length).toBeGreaterThan(0);
  for (const r of rows) {
    expect(r.title).not.toMatch(/^(page|issue|file)?\s*\d+$/);
    expect(r.key).not.toMatch(/\d{5,}/);
  }
  await screenshot(page, 'graph-search-titles', 'docs/screenshots/graph-search-titles.png');
});

test('on a 360 px phone with a short log the composer sits at the bottom, its placeholder whole', async ({
  page,
}) => {
  await as(page, ALICE);
  await page.setViewportSize({ width: 360, height: 740 });
  await page.goto('/');
  const composer = page.locator('form.composer');
  const box = page.getByRole('textbox', { name: 'Your question' });
  await expect(box).toBeVisible();
  const fits = await box.evaluate((el: HTMLTextAreaElement) => {
    const ctx = document.createElement('canvas').getContext('2d')!;
    const style = getComputedStyle(el);
    ctx.font = `${style.fontSize} ${style.fontFamily}`;
    const inner = el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    return { text: ctx.measureText(el.placeholder).width, inner, rows: el.rows };
  });
  expect(fits.text, JSON.stringify(fits)).toBeLessThanOrEqual(fits.inner * fits.rows);
  await ask(page, 'What is PAY-7?');
  const bottom = await composer.evaluate((el) => el.getBoundingClientRect().bottom);
  expect(Math.abs(bottom - 740)).toBeLessThanOrEqual(2);
  await screenshot(page, 'chat-short-phone', 'docs/screenshots/chat-short-phone.png');
});

test('at 360 px the first view of the graph draws no label past the screen’s right edge', async ({
  page,
}) => {
  await as(page, ALICE);
  await page.setViewportSize({ width: 360, height: 740 });
  await page.goto('/explore');
  await expect(page.locator('.gnode').first()).toBeVisible();
  await page.waitForLoadState('networkidle');
  await page.waitForTimeout(800); // the fit's zoom settles
  const labels = await page.locator('[data-testid="node-label"]').evaluateAll((els) =>
    els
      .map((el) => ({ text: el.textContent?.trim() ?? '', r: el.getBoundingClientRect() }))
      .filter(({ r }) => r.width > 0 && r.bottom > 0 && r.top < window.innerHeight)
      .map(({ text, r }) => ({ text, right: Math.round(r.right) })),
  );
  expect(labels.length).toBeGreaterThan(0);
  const off = labels.filter((l) => l.right > 360 + 1);
  expect(off, JSON.stringify(off)).toEqual([]);
  await screenshot(page, 'graph-labels-phone', 'docs/screenshots/graph-labels-phone.png');
});
