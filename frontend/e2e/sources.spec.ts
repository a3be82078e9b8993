import { expect, screenshot, test } from './fixtures';

test('lists the sources and follows a sync to completion', async ({ page }) => {
  await page.goto('/sync');
  const cards = page.locator('li.card');
  await expect(cards.first()).toBeVisible();
  expect(await cards.count()).toBeGreaterThanOrEqual(3);
  for (const card of await cards.all()) {
    await expect(card.getByTestId('source-status')).toHaveText(
      /Up to date|Never synced|Failed|Syncing/,
    );
  }

  const card = page
    .locator('li.card[data-source]')
    .filter({ has: page.getByRole('heading', { name: /wiki|confluence/i }) })
    .first();
  const target = (await card.count()) ? card : cards.first();
  const polls: string[] = [];
  page.on('response', (r) => {
    if (/\/sources\/[^/]+\/runs\//.test(r.url())) polls.push(r.url());
  });
  await target.getByRole('button', { name: 'Sync now' }).click();

  const progress = target.getByRole('progressbar');
  await expect(progress).toBeVisible();
  await expect(target.getByTestId('source-status')).toHaveText('Up to date', { timeout: 120_000 });
  await expect(target.getByTestId('run-progress')).toContainText('succeeded');
  await expect(progress).toHaveAttribute('aria-valuenow', '100');
  expect(polls.length).toBeGreaterThan(0);
  await expect(target.getByText('Last success')).toBeVisible();
  await screenshot(page, 'sources');
});

test('a file chosen in the drop zone is uploaded, indexed and private to its uploader', async ({
  page,
}) => {
  await page.goto('/sync');
  const zone = page.getByTestId('upload-drop');
  await expect(zone.getByRole('heading', { name: 'Upload documents' })).toBeVisible();
  const name = `runbook-${Date.now()}.md`;
  await zone.locator('input[type=file]').setInputFiles({
    name,
    mimeType: 'text/markdown',
    buffer: Buffer.from(
      '# Restarting the ledger writer\n\nStop the writer, run the ledger check, start it.\n',
    ),
  });
  await expect(
    zone.getByText('indexed as “Restarting the ledger writer” (private to you)'),
  ).toBeVisible({
    timeout: 60_000,
  });
  await zone.locator('input[type=file]').setInputFiles({
    name: 'tool.exe',
    mimeType: 'application/octet-stream',
    buffer: Buffer.from('MZ'),
  });
  await expect(zone.getByRole('alert')).toContainText('.exe is not accepted');
  await expect(page.locator('li.card[data-source="uploads"]')).toBeVisible();
});

test('"Your uploads" lists the person’s own uploads; Delete takes one out of the index', async ({
  page,
}) => {
  await page.goto('/sync');
  const zone = page.getByTestId('upload-drop');
  const name = `oncall-${Date.now()}.md`;
  const marker = `zebrafish${Date.now()}`;
  await zone.locator('input[type=file]').setInputFiles({
    name,
    mimeType: 'text/markdown',
    buffer: Buffer.from(`# Sandbox key rotation\n\nThe ${marker} key is rotated by Dana.\n`),
  });
  const mine = page.getByTestId('your-uploads');
  const row = mine.locator('li', { hasText: name });
  await expect(row).toBeVisible({ timeout: 60_000 });
  await expect(row.getByRole('link', { name: 'Sandbox key rotation' })).toHaveAttribute(
    'href',
    /\/explore\?focus=upload/,
  );
  await expect(row).toContainText('bytes');
  await row.scrollIntoViewIfNeeded();
  await screenshot(page, 'your-uploads', 'docs/screenshots/your-uploads.png');
  const href = (await row.getByRole('link').getAttribute('href')) ?? '';
  const documentId = decodeURIComponent(href.split('focus=')[1] ?? '');
  const found = async () =>
    (await page.request.get(`/documents/${encodeURIComponent(documentId)}`)).status();
  expect(await found()).toBe(200);

  page.once('dialog', (d) => void d.accept());
  await row.getByRole('button', { name: `Delete ${name}` }).click();
  await expect(row).toHaveCount(0);
  await expect(zone.getByText('indexed as “Sandbox key rotation”')).toHaveCount(0);
  await expect.poll(found).toBe(404);
});

/** Issue 61, item 4: the same file name again is version 2 of the same document (its history and
 *  version diff in the graph panel, like a Confluence page's); a question asked right after the
 *  upload answers from it; "Open in Upload" serves the latest version. Desktop and 360 px. */
for (const screen of [
  { name: 'desktop', width: 1440, height: 900, animal: 'okapi', title: 'Okapi key rotation' },
  { name: 'phone', width: 360, height: 740, animal: 'tapir', title: 'Tapir key rotation' },
]) {
  test(`uploading a file again makes version 2 of it, found at once (${screen.name})`, async ({
    page,
  }) => {
    await page.setViewportSize({ width: screen.width, height: screen.height });
    await page.goto('/sync');
    const zone = page.getByTestId('upload-drop');
    const stamp = Date.now();
    const name = `rotation-${screen.name}-${stamp}.md`;
    const marker = screen.animal; // a word no other document has
    const file = (who: string, days: number) => ({
      name,
      mimeType: 'text/markdown',
      buffer: Buffer.from(
        `# ${screen.title}\n\nThe ${marker} key is rotated every ${days} days by ${who}.\n`,
      ),
    });
    await zone.locator('input[type=file]').setInputFiles(file('Grace Lee', 30));
    await expect(zone.getByText(`indexed as “${screen.title}” (private to you)`)).toBeVisible({
      timeout: 60_000,
    });
    await zone.locator('input[type=file]').setInputFiles(file('Ivo Petrov', 14));
    await expect(
      zone.getByText(`indexed as “${screen.title}”, version 2 of your document (private to you)`),
    ).toBeVisible({ timeout: 60_000 });

    // one row, not a duplicate; its versions link to the document's history
    const mine = page.getByTestId('your-uploads');
    const rows = mine.locator('li', { hasText: name });
    await expect(rows).toHaveCount(1);
    const versions = rows.getByTestId('upload-versions');
    await expect(versions).toHaveText('2 versions');
    await rows.scrollIntoViewIfNeeded();
    await screenshot(
      page,
      `upload-versions-${screen.name}`,
      `docs/screenshots/upload-versions-${screen.name}.png`,
    );

    // asked at once, the answer comes from the latest version
    const answer = await page.request.post('/ask', {
      data: { question: `Who rotates the ${marker} key?` },
    });
    const body = (await answer.json()) as { answer: string; sources: { url: string }[] };
    expect(body.answer).toContain('Ivo Petrov');
    expect(body.answer).not.toContain('Grace Lee');
    const openUrl = body.sources[0]?.url ?? '';
    expect(openUrl).toMatch(/^\/uploads\/[0-9a-f]{24}$/);
    const opened = await page.request.get(openUrl, { headers: { Accept: 'text/html' } });
    expect(opened.status()).toBe(200);
    expect(await opened.text()).toContain('14 days by Ivo Petrov');

    await versions.click();
    await expect(page).toHaveURL(/\/explore\?focus=upload/);
    const panel = page.getByTestId('document-panel');
    await expect(panel.getByRole('heading', { level: 2 })).toContainText(screen.title);
    const open = panel.getByRole('link', { name: /Open in Upload/ });
    await expect(open).toHaveAttribute('href', openUrl);
    const history = panel.getByTestId('document-history');
    await history.scrollIntoViewIfNeeded();
    await expect(history.locator('.tl')).toHaveCount(2);
    const first = history.getByRole('button', { name: /version 1\b/ });
    await first.scrollIntoViewIfNeeded();
    await first.click();
    const diff = history.getByTestId('version-diff');
    await expect(diff).toContainText(`-The ${marker} key is rotated every 30 days by Grace Lee.`);
    await expect(diff).toContainText(`+The ${marker} key is rotated every 14 days by Ivo Petrov.`);
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(wide, `fits ${screen.width} px`).toBeLessThanOrEqual(screen.width);
    await screenshot(
      page,
      `upload-history-${screen.name}`,
      `docs/screenshots/upload-history-${screen.name}.png`,
    );

    // Delete takes the document out with both versions
    await page.goto('/sync');
    const row = page.getByTestId('your-uploads').locator('li', { hasText: name });
    page.once('dialog', (d) => {
      expect(d.message()).toContain('and its 2 versions');
      void d.accept();
    });
    await row.getByRole('button', { name: `Delete ${name}` }).click();
    await expect(row).toHaveCount(0);
    expect((await page.request.get(openUrl)).status()).toBe(404);
  });
}
