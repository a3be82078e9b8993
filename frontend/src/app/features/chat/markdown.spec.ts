import { renderAnswer, sourceAnchor } from './markdown';

describe('renderAnswer', () => {
  const titles = ['PAY-1 Retry webhooks', 'Runbook'];

  it('renders markdown and links known citations to source cards', () => {
    const html = renderAnswer('**Retry** with backoff [1]. See also [2, 3].', 't1', titles);
    const el = document.createElement('div');
    el.innerHTML = html;
    expect(el.querySelector('strong')?.textContent).toBe('Retry');
    const cites = [...el.querySelectorAll('a.cite')];
    expect(cites.map((a) => a.getAttribute('href'))).toEqual([`#${sourceAnchor('t1', 1)}`]);
    expect(cites[0].getAttribute('aria-label')).toBe('Source 1: PAY-1 Retry webhooks');
    expect(el.textContent).toContain('[2, 3]'); // 3 is unknown: the group stays text
  });

  it('splits grouped citations and leaves code alone', () => {
    const el = document.createElement('div');
    el.innerHTML = renderAnswer('Both [1, 2]; `arr[1]`', 't2', titles);
    expect([...el.querySelectorAll('a.cite')].map((a) => a.textContent)).toEqual(['[1]', '[2]']);
    expect(el.querySelector('code')?.textContent).toBe('arr[1]');
  });

  it('removes scripts, event handlers and javascript: links', () => {
    const el = document.createElement('div');
    el.innerHTML = renderAnswer(
      '<script>alert(1)</script><b onclick="x()">b</b>\n\n[x](javascript:alert(1)) <a href="javascript:alert(2)">y</a>',
      't3',
      titles,
    );
    expect(el.querySelector('script')).toBeNull();
    expect(el.querySelector('b')?.getAttribute('onclick')).toBeNull();
    expect(
      [...el.querySelectorAll('a')]
        .map((a) => a.getAttribute('href') ?? '')
        .filter((h) => h.startsWith('javascript')),
    ).toEqual([]);
  });

  it('opens external links in a new tab safely', () => {
    const el = document.createElement('div');
    el.innerHTML = renderAnswer('[docs](https://example.com)', 't4', titles);
    const a = el.querySelector('a')!;
    expect(a.getAttribute('target')).toBe('_blank');
    expect(a.getAttribute('rel')).toContain('noopener');
  });
});

describe('renderMarkdown', () => {
  it('renders a document as text: headings under the page, scripts and handlers removed', async () => {
    const { renderMarkdown } = await import('./markdown');
    const html = renderMarkdown(
      '# Title\n\nSome **bold** text <img src=x onerror=alert(1)><script>x</script>',
    );
    expect(html).toContain('<h4>Title</h4>');
    expect(html).toContain('<strong>bold</strong>');
    expect(html).not.toMatch(/onerror|<script|<img/);
  });

  it('makes code blocks focusable, so a keyboard can scroll them; `<pre` in text stays text', async () => {
    const { renderMarkdown } = await import('./markdown');
    const doc = renderMarkdown('```\nlong code\n```\n\nwrite &lt;pre> by hand');
    expect(doc).toContain('<pre tabindex="0"><code>long code');
    expect(doc).toContain('&lt;pre&gt;');
    const answer = renderAnswer('```\ncurl -X POST\n```', 't1', []);
    expect(answer).toContain('<pre tabindex="0">');
  });
});
