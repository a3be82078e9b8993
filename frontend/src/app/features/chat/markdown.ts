import DOMPurify from 'dompurify';
import { marked } from 'marked';

const CITATION = /\[(\d{1,3}(?:\s*[,;]\s*\d{1,3})*)\]/g;
const SKIP = new Set(['A', 'CODE', 'PRE']);

/** The id of a source card, the target of its `[n]` citations. */
export function sourceAnchor(turnId: string, n: number): string {
  return `src-${turnId}-${n}`;
}

let hooked = false;
function hookLinks(): void {
  if (hooked) return;
  hooked = true;
  DOMPurify.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName === 'A' && /^https?:/i.test(node.getAttribute('href') ?? '')) {
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer');
    }
  });
}

/**
 * Markdown → sanitised HTML with `[n]` (and `[1, 2]`) turned into links to the turn's source
 * cards. Numbers past the known sources stay plain text; code spans and links are left alone.
 */
export function renderAnswer(
  markdown: string,
  turnId: string,
  sourceTitles: readonly string[],
): string {
  hookLinks();
  const html = marked.parse(markdown, { async: false, gfm: true, breaks: true });
  const clean = DOMPurify.sanitize(html, {
    FORBID_TAGS: ['style', 'form', 'input', 'img'],
    FORBID_ATTR: ['style'],
  });
  const template = document.createElement('template');
  template.innerHTML = clean;
  linkCitations(template.content, turnId, sourceTitles);
  return focusableCode(template.innerHTML);
}

/**
 * Code blocks scroll sideways: each `<pre>` is focusable, so a keyboard can scroll it (axe-core's
 * `scrollable-region-focusable`, WCAG 2.1.1).
 */
function focusableCode(html: string): string {
  return html.replace(/<pre(?=[\s>])/g, '<pre tabindex="0"');
}

/**
 * Markdown (a document's text) → sanitised HTML, links opening in a new tab; no images or forms.
 * Its headings move `shift` levels down, under the page's own (a document's "# Title" is an h4
 * inside the details panel's h3 section, not a second page title).
 */
export function renderMarkdown(markdown: string, shift = 3): string {
  hookLinks();
  const html = marked.parse(markdown, { async: false, gfm: true, breaks: false });
  const clean = DOMPurify.sanitize(html, {
    FORBID_TAGS: ['style', 'form', 'input', 'img', 'iframe'],
    FORBID_ATTR: ['style'],
  });
  return focusableCode(
    clean.replace(
      /<(\/?)h([1-6])\b/g,
      (_m, slash: string, n: string) => `<${slash}h${Math.min(6, Number(n) + shift)}`,
    ),
  );
}

function linkCitations(root: Node, turnId: string, titles: readonly string[]): void {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const texts: Text[] = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    let parent = n.parentElement;
    let skip = false;
    while (parent) {
      if (SKIP.has(parent.tagName)) skip = true;
      parent = parent.parentElement;
    }
    if (!skip && CITATION.test(n.textContent ?? '')) texts.push(n as Text);
    CITATION.lastIndex = 0;
  }
  for (const text of texts) {
    const value = text.textContent ?? '';
    const frag = document.createDocumentFragment();
    let last = 0;
    for (const m of value.matchAll(CITATION)) {
      const numbers = m[1].split(/[,;]/).map((s) => Number(s.trim()));
      if (!numbers.every((n) => n >= 1 && n <= titles.length)) continue;
      frag.append(value.slice(last, m.index));
      numbers.forEach((n, i) => {
        const a = document.createElement('a');
        a.className = 'cite';
        a.href = `#${sourceAnchor(turnId, n)}`;
        a.dataset['cite'] = String(n);
        a.setAttribute('aria-label', `Source ${n}: ${titles[n - 1]}`);
        a.textContent = `[${n}]`;
        if (i > 0) frag.append(' ');
        frag.append(a);
      });
      last = (m.index ?? 0) + m[0].length;
    }
    if (last === 0) continue;
    frag.append(value.slice(last));
    text.replaceWith(frag);
  }
}
