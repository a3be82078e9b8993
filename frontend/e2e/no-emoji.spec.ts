import { ask, expect, test } from './fixtures';

/**
 * No emoji in the app's own text: icons are inline SVG. Emoji render as empty boxes where no
 * emoji font is installed (most servers and many corporate desktops). Scanned: the rendered text,
 * the accessible names and hints (aria-label, title, placeholder, alt) and CSS generated content.
 * Document text (answers, titles from the sources) is the sources' own and is left out.
 */
const EMOJI = /\p{Extended_Pictographic}/u;

const PAGES = [
  '/',
  '/explore',
  '/explore?focus=confluence:page:2000004', // the details panel with a document's history
  '/sync',
  '/changed',
  '/memory',
  '/memory?tab=expiring',
  '/tokens',
  '/admin',
  '/no-such-page',
];

for (const path of PAGES) {
  test(`no emoji glyph in the app's text on ${path}`, async ({ page }) => {
    await page.goto(path);
    await page.waitForLoadState('networkidle');
    if (path === '/') {
      await page.request.post('/chat/clear');
      await page.reload();
      await ask(page, 'How do we retry failed webhooks?');
    }
    const found = await page.evaluate((source) => {
      const emoji = new RegExp(source, 'u');
      const hits: string[] = [];
      // the sources' own words (answers, document titles and snippets) are not the app's text
      const theirs = '.markdown, app-source-card .title, app-source-card .snippet, .doc-text';
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const el = n.parentElement;
        if (!el || el.closest(theirs) || el.closest('script, style')) continue;
        if (emoji.test(n.textContent ?? '')) hits.push(`text: ${n.textContent?.trim()}`);
      }
      for (const el of document.body.querySelectorAll('*')) {
        for (const a of ['aria-label', 'title', 'placeholder', 'alt']) {
          const v = el.getAttribute(a);
          if (v && emoji.test(v) && !el.closest(theirs)) hits.push(`${a}: ${v}`);
        }
        for (const pseudo of ['::before', '::after']) {
          const c = getComputedStyle(el, pseudo).content;
          if (c && c !== 'none' && emoji.test(c)) hits.push(`${pseudo}: ${c}`);
        }
      }
      return hits;
    }, EMOJI.source);
    expect(found).toEqual([]);
  });
}
