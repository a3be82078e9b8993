import { SIGNED_OUT, ask, expect, signIn, test } from './fixtures';

/**
 * What the chat says when the document a question names is not in the answer, told apart as far
 * as the reader may know: left out by the source filter (say so, offer to turn the source on),
 * not in the knowledge base (the admin reads everything), not among the documents a member can
 * read (the same words whether it is hidden or missing). Setup hints and admin actions are for
 * admins only.
 */
test.beforeEach(async ({ page }) => {
  await page.request.post('/chat/clear');
});

test('filtered out: the answer says which source the filter leaves out and turns it on', async ({
  page,
}) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Jira', exact: true }).click();
  await ask(page, 'What is PAY-12 about?');
  const turn = page.locator('app-chat-turn').last();
  await expect(turn.getByTestId('answer')).toContainText(
    'PAY-12 is in Jira, which this search leaves out: turn Jira on to include it.',
  );
  await expect(turn.getByTestId('answer')).not.toContainText('not found');
  await expect(turn.locator('.empty')).toHaveCount(0); // no contradicting "no matching documents"
  await turn.getByRole('button', { name: 'Turn Jira on and ask again' }).click();
  await expect(page.getByRole('button', { name: 'Jira', exact: true })).toHaveAttribute(
    'aria-pressed',
    'true',
  );
  const again = page.locator('app-chat-turn').last();
  await expect(again.locator('.answer')).toHaveAttribute('aria-busy', 'false', { timeout: 60_000 });
  await expect(page.locator('app-chat-turn')).toHaveCount(2);
  await expect(again.locator('app-source-card[data-document-id="jira:PAY-12"]')).toBeVisible();
});

test('not found: the admin is told the knowledge base has no such document', async ({ page }) => {
  await page.goto('/');
  await ask(page, 'What is PAY-999 about?');
  const turn = page.locator('app-chat-turn').last();
  await expect(turn.getByTestId('answer')).toContainText(
    'PAY-999 was not found in the knowledge base.',
  );
  await expect(turn.locator('.empty')).toHaveCount(0);
  await expect(turn.getByRole('button', { name: /Turn .* on/ })).toHaveCount(0);
  await expect(turn.getByText(/turn more sources on/i)).toHaveCount(0); // every source is on
  // the admin sees the setup hint and the admin action
  await expect(page.getByText('DEVKB_LLM_PROVIDER=ollama')).toBeVisible();
  await page.goto('/sync');
  await expect(page.getByRole('button', { name: 'Sync now' }).first()).toBeVisible();
});

test.describe('as a member', () => {
  test.use({ storageState: SIGNED_OUT });

  test('not readable: a member is told "not found among the documents you can read", alike for hidden and missing; no setup hints, no admin actions', async ({
    page,
  }) => {
    await signIn(page.request, (u) => u.email === 'carol@acme.example');
    await page.request.post('/chat/clear');
    await page.goto('/');
    await ask(page, 'What is PAY-12 about?'); // exists, but carol may not read PAY
    const hidden = page.locator('app-chat-turn').last();
    await expect(hidden.getByTestId('answer')).toHaveText(
      'PAY-12 was not found among the documents you can read.',
    );
    await ask(page, 'What is PAY-999 about?'); // does not exist at all
    const missing = page.locator('app-chat-turn').last();
    await expect(missing.getByTestId('answer')).toHaveText(
      'PAY-999 was not found among the documents you can read.',
    );
    for (const turn of [hidden, missing]) {
      await expect(turn.locator('.empty')).toHaveCount(0);
      await expect(turn.locator('app-source-card')).toHaveCount(0);
      await expect(turn.getByRole('button', { name: /Turn .* on/ })).toHaveCount(0);
    }
    await expect(page.getByText(/DEVKB_/)).toHaveCount(0);
    await page.goto('/sync');
    await expect(page.getByRole('heading', { name: 'Sources' })).toBeVisible();
    await expect(page.getByTestId('member-note')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Sync now' })).toHaveCount(0);
  });
});
