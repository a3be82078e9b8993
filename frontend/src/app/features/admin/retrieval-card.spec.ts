import { provideHttpClient } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';

import { type Adaptation, RetrievalCard, change } from './retrieval-card';

const STATUS: Adaptation['status'] = {
  state: 'succeeded',
  stage: 'test, text, adapted',
  done: 400,
  total: 401,
  started: '2026-12-07T09:00:00+00:00',
  finished: '2026-12-07T09:02:13+00:00',
  error: '',
  edges_seen: 9120,
};
const EVALUATED: Adaptation = {
  enabled: true,
  status: STATUS,
  in_use_with_anchor: true,
  in_use_text_only: false,
  method_with_anchor: 'ranker',
  method_text_only: 'defaults',
  decision: 'adapted',
  note: '',
  test_from: '2019-11-22T10:00:00+00:00',
  train_pairs: 1503,
  test_pairs: 376,
  figures: [
    {
      mode: 'anchor',
      defaults_ndcg: 0.4518,
      adapted_ndcg: 0.4661,
      defaults_recall: 0.41,
      adapted_recall: 0.41,
      queries: 401,
    },
    {
      mode: 'text',
      defaults_ndcg: 0.378,
      adapted_ndcg: 0.378,
      defaults_recall: 0.35,
      adapted_recall: 0.36,
      queries: 401,
    },
  ],
  evaluated: '2026-12-07T09:02:13+00:00',
};

function setUp() {
  TestBed.configureTestingModule({
    imports: [RetrievalCard],
    providers: [provideHttpClient(), provideHttpClientTesting()],
  });
  const http = TestBed.inject(HttpTestingController);
  const fixture = TestBed.createComponent(RetrievalCard);
  const el: HTMLElement = fixture.nativeElement;
  const until = (check: () => void) =>
    vi.waitFor(async () => {
      await fixture.whenStable();
      check();
    });
  return { http, el, until };
}

const text = (el: HTMLElement, selector: string) =>
  el.querySelector(selector)?.textContent?.replace(/\s+/g, ' ').trim();

describe('RetrievalCard', () => {
  it('shows what is in use and the time-split figure beside the shipped defaults', async () => {
    const { http, el, until } = setUp();
    http.expectOne('/admin/retrieval/adaptation').flush(EVALUATED);
    await until(() =>
      expect(el.querySelectorAll('[data-testid=figures] tbody tr')).toHaveLength(2),
    );
    expect(text(el, '[data-testid=use-anchor]')).toBe('ranking refitted here');
    expect(text(el, '[data-testid=use-text]')).toBe('shipped defaults');
    expect(text(el, '[data-testid=decision]')).toContain('last decision: adapted');
    const textRow = [...el.querySelectorAll('[data-mode=text] td')].map((c) =>
      c.textContent?.trim(),
    );
    expect(textRow).toEqual(['0.378', '0.378', '±0', '401']);
    const anchorRow = [...el.querySelectorAll('[data-mode=anchor] td')].map((c) =>
      c.textContent?.trim(),
    );
    expect(anchorRow).toEqual(['0.452', '0.466', '+0.014', '401']);
    expect(text(el, '[data-testid=split]')).toContain('376 pairs made from');
    expect(text(el, '[data-testid=split]')).toContain('1503 before');
    http.verify();
  });

  it('starts an evaluation, shows its progress, and the API’s refusal while one runs', async () => {
    const { http, el, until } = setUp();
    http.expectOne('/admin/retrieval/adaptation').flush({
      ...EVALUATED,
      decision: null,
      figures: [],
      status: { ...STATUS, state: 'idle' },
    });
    await until(() => expect(el.querySelector('[data-testid=no-figures]')).not.toBeNull());
    const button = [...el.querySelectorAll('button')].find((b) =>
      b.textContent?.includes('Evaluate and adapt now'),
    )!;
    button.click();
    const post = http.expectOne('/admin/retrieval/adaptation');
    expect(post.request.method).toBe('POST');
    post.flush({
      ...EVALUATED,
      status: { ...STATUS, state: 'running', stage: 'pairs', done: 0, total: 1 },
    });
    await until(() => {
      expect(text(el, '[data-testid=adaptation-status]')).toBe('pairs 0/1');
      expect(button.disabled).toBe(true);
      expect(button.textContent).toContain('Adapting');
    });

    // a second start (another admin's tab) while one runs: the 409's detail, as it is
    const refresh = [...el.querySelectorAll('button')].find((b) =>
      b.textContent?.includes('Refresh'),
    )!;
    refresh.click();
    http
      .expectOne('/admin/retrieval/adaptation')
      .flush({ ...EVALUATED, status: { ...STATUS, state: 'idle' } });
    await until(() => expect(button.disabled).toBe(false));
    button.click();
    http
      .expectOne('/admin/retrieval/adaptation')
      .flush(
        { detail: 'an adaptation is running already' },
        { status: 409, statusText: 'Conflict' },
      );
    await until(() =>
      expect(text(el, '[data-testid=retrieval-error]')).toBe('an adaptation is running already'),
    );
    http.verify();
  });

  it('writes the change with its sign', () => {
    const f = EVALUATED.figures![1];
    expect(change({ ...f, adapted_ndcg: 0.385 })).toBe('+0.007');
    expect(change({ ...f, adapted_ndcg: 0.374 })).toBe('−0.004');
    expect(change({ ...f, adapted_ndcg: f.defaults_ndcg })).toBe('±0');
  });
});
