import { provideHttpClient } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { provideRouter } from '@angular/router';

import { AuthStore } from '../../core/auth/auth-store';
import { GapsPage, kindsText, type GapReport } from './gaps-page';

const ALICE = {
  email: 'alice@acme.example',
  name: 'Alice',
  role: 'admin',
  disabled: false,
  sso: false,
};
const CAROL = { ...ALICE, email: 'carol@acme.example', name: 'Carol', role: 'member' };

const REPORT: GapReport = {
  total: 3,
  questions_kept: false,
  recording: 'auto',
  days: 30,
  topics: [
    {
      label: 'autoscal · gpu · kubernete',
      terms: ['autoscal', 'gpu', 'kubernete'],
      count: 2,
      kinds: { not_found: 2 },
      questions: [],
      documents: [
        {
          id: 'confluence:page:7',
          title: 'Cluster runbook',
          url: 'https://x/7',
          type: 'CONFLUENCE',
        },
      ],
      last_asked: '2026-11-25T10:00:00+00:00',
    },
    {
      label: 'cache · warmer',
      terms: ['cache', 'warmer'],
      count: 1,
      kinds: { thumbs_down: 1 },
      questions: ['Why was the cache warmer dropped?'],
      documents: [],
      last_asked: '2026-11-24T10:00:00+00:00',
    },
  ],
  voted_down: [
    {
      at: '2026-11-24T10:00:00+00:00',
      reason: 'It quotes the feature list, not the reason.',
      question: 'Why was the cache warmer dropped?',
      answer: 'WEB-3 is about the cache warmer …',
      documents: [
        { id: 'jira:WEB-3', title: 'WEB-3: Cache warmer', url: 'https://x/3', type: 'JIRA' },
      ],
    },
    { at: '2026-11-23T10:00:00+00:00', reason: '', question: '', answer: '', documents: [] },
  ],
};

async function setUp(user: typeof ALICE) {
  TestBed.configureTestingModule({
    imports: [GapsPage],
    providers: [provideHttpClient(), provideHttpClientTesting(), provideRouter([])],
  });
  const http = TestBed.inject(HttpTestingController);
  const loaded = TestBed.inject(AuthStore).load();
  http.expectOne('/auth/status').flush({ accounts: true, user, oidc: null, demo_users: [] });
  await loaded;
  const fixture = TestBed.createComponent(GapsPage);
  const el: HTMLElement = fixture.nativeElement;
  const until = (check: () => void) =>
    vi.waitFor(async () => {
      await fixture.whenStable();
      check();
    });
  return { http, fixture, el, until };
}

describe('GapsPage', () => {
  it('lists the topics with counts, kinds, questions and closest documents', async () => {
    const { http, el, until } = await setUp(ALICE);
    http.expectOne((r) => r.url === '/admin/gaps' && r.params.get('days') === '30').flush(REPORT);
    await until(() => expect(el.querySelectorAll('[data-testid="gap-topic"]').length).toBe(2));
    const [first, second] = Array.from(el.querySelectorAll('[data-testid="gap-topic"]'));
    expect(first.textContent).toContain('autoscal · gpu · kubernete');
    expect(first.textContent).toContain('2 not found');
    expect(first.querySelector('a')?.textContent).toContain('Cluster runbook');
    expect(second.textContent).toContain('Why was the cache warmer dropped?');
    expect(second.textContent).toContain('1 voted down');
    expect(el.querySelector('[data-testid="gaps-summary"]')?.textContent).toContain(
      '3 gaps in 2 topics',
    );
    expect(el.querySelector('[data-testid="gaps-privacy"]')).not.toBeNull();
    const [voted, bare] = Array.from(el.querySelectorAll('[data-testid="voted-down-item"]'));
    expect(voted.textContent).toContain('Reason: It quotes the feature list, not the reason.');
    expect(voted.textContent).toContain('WEB-3 is about the cache warmer');
    expect(voted.querySelector('a')?.textContent).toContain('WEB-3: Cache warmer');
    expect(bare.textContent).toContain('No reason given.');
  });

  it('asks again for one kind and the whole period when the filters change', async () => {
    const { http, el, until } = await setUp(ALICE);
    http.expectOne((r) => r.url === '/admin/gaps').flush(REPORT);
    await until(() => expect(el.querySelector('[data-testid="gap-topic"]')).not.toBeNull());
    const kind = el.querySelector<HTMLSelectElement>('[data-testid="gaps-kind"]')!;
    kind.value = 'thumbs_down';
    kind.dispatchEvent(new Event('change'));
    const req = http.expectOne((r) => r.url === '/admin/gaps');
    expect(req.request.params.getAll('kind')).toEqual(['thumbs_down']);
    req.flush({ ...REPORT, total: 0, topics: [], voted_down: [] });
    await until(() => expect(el.querySelector('[data-testid="gaps-empty"]')).not.toBeNull());
    const period = el.querySelector<HTMLSelectElement>('[data-testid="gaps-period"]')!;
    period.value = '';
    period.dispatchEvent(new Event('change'));
    const all = http.expectOne((r) => r.url === '/admin/gaps');
    expect(all.request.params.has('days')).toBe(false);
    all.flush(REPORT);
  });

  it('shows the API error', async () => {
    const { http, el, until } = await setUp(ALICE);
    http
      .expectOne((r) => r.url === '/admin/gaps')
      .flush({ detail: 'store unavailable' }, { status: 503, statusText: 'Unavailable' });
    await until(() =>
      expect(el.querySelector('[data-testid="gaps-error"]')?.textContent).toContain(
        'store unavailable',
      ),
    );
  });

  it('tells a member it is for admins and asks nothing', async () => {
    const { http, el, until } = await setUp(CAROL);
    await until(() => expect(el.querySelector('[data-testid="admins-only"]')).not.toBeNull());
    http.expectNone((r) => r.url === '/admin/gaps');
  });

  it('names the kinds in words', () => {
    expect(kindsText({ thumbs_down: 1, not_found: 2 })).toBe('2 not found · 1 voted down');
  });
});
