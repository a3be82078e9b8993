import { provideHttpClient } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { provideRouter } from '@angular/router';

import type { Memory } from '../../core/api/models';
import { AuthStore } from '../../core/auth/auth-store';
import { MemoryPage, day, describe as describeMemory, standing } from './memory-page';

function memory(over: Partial<Memory>): Memory {
  return {
    id: 'memory:1',
    text: 'the build needs Node 20',
    scope: 'private',
    owner: 'bob@acme.example',
    status: 'active',
    recorded_at: '2026-12-02T10:00:00+00:00',
    valid_from: '2026-12-02T10:00:00+00:00',
    valid_until: '',
    origin: 'conversation',
    subject: 'build',
    attribute: 'need node',
    supersedes: '',
    superseded_by: '',
    about: [],
    derived_from: [],
    verified_by: '',
    verified_at: '',
    ...over,
  };
}

async function signedIn(role: 'member' | 'admin'): Promise<HttpTestingController> {
  TestBed.configureTestingModule({
    imports: [MemoryPage],
    providers: [provideHttpClient(), provideHttpClientTesting(), provideRouter([])],
  });
  const http = TestBed.inject(HttpTestingController);
  const loaded = TestBed.inject(AuthStore).load();
  http.expectOne('/auth/status').flush({
    accounts: true,
    user: { email: 'bob@acme.example', name: 'Bob', role, disabled: false, sso: false },
    oidc: null,
    demo_users: [],
  });
  await loaded;
  return http;
}

describe('MemoryPage', () => {
  it('lists my memories, hides superseded versions, corrects (PATCH) and forgets', async () => {
    const http = await signedIn('member');
    const fixture = TestBed.createComponent(MemoryPage);
    const el: HTMLElement = fixture.nativeElement;
    const mine = [
      memory({ id: 'memory:2', text: 'the build needs Node 22', supersedes: 'memory:1' }),
      memory({ status: 'superseded', superseded_by: 'memory:2', valid_until: '2026-12-03' }),
    ];
    http
      .expectOne((r) => r.url === '/memories' && r.params.get('owner') === 'bob@acme.example')
      .flush(mine);
    await vi.waitFor(async () => {
      await fixture.whenStable();
      expect(el.querySelectorAll('[data-testid=memory]')).toHaveLength(1);
    });
    expect(el.textContent).toContain('Show 1 earlier version');
    expect(el.querySelector('[data-testid=memory]')?.textContent).toContain('Node 22');

    // correct: a PATCH with the new text, then the list again
    const correct = [...el.querySelectorAll('button')].find(
      (b) => b.textContent?.trim() === 'Correct',
    )!;
    correct.click();
    await fixture.whenStable();
    const box = el.querySelector<HTMLTextAreaElement>('.correct textarea')!;
    box.value = 'the build needs Node 24';
    box.dispatchEvent(new Event('input'));
    el.querySelector<HTMLFormElement>('.correct')!.dispatchEvent(new Event('submit'));
    const patch = http.expectOne('/memories/memory%3A2');
    expect(patch.request.method).toBe('PATCH');
    expect(patch.request.body).toEqual({ text: 'the build needs Node 24' });
    patch.flush(memory({ id: 'memory:3', text: 'the build needs Node 24' }));
    (await vi.waitFor(() => http.expectOne((r) => r.url === '/memories'))).flush([
      memory({ id: 'memory:3', text: 'the build needs Node 24' }),
    ]);
    await vi.waitFor(async () => {
      await fixture.whenStable();
      expect(el.textContent).toContain('Corrected: the earlier version stays in its history.');
      expect(el.querySelector('[data-testid=memory]')?.textContent).toContain('Node 24');
    });

    // forget, after a confirmation
    vi.spyOn(window, 'confirm').mockReturnValue(true);
    el.querySelector<HTMLButtonElement>('[aria-label="Forget: the build needs Node 24"]')!.click();
    const del = http.expectOne('/memories/memory%3A3');
    expect(del.request.method).toBe('DELETE');
    del.flush({ deleted: ['memory:3', 'memory:2', 'memory:1'] });
    (await vi.waitFor(() => http.expectOne((r) => r.url === '/memories'))).flush([]);
    await vi.waitFor(async () => {
      await fixture.whenStable();
      expect(el.querySelector('[data-testid=memory-empty]')?.textContent).toContain(
        'You have not asked devkb to remember anything yet',
      );
    });
    http.verify();
  });

  it('searches as of a date and shows a reviewer the proposed team memories to verify', async () => {
    const http = await signedIn('admin');
    const fixture = TestBed.createComponent(MemoryPage);
    const el: HTMLElement = fixture.nativeElement;
    http.expectOne((r) => r.url === '/memories').flush([]);
    await fixture.whenStable();

    const q = el.querySelector<HTMLInputElement>('#memory-q')!;
    q.value = 'freeze';
    q.dispatchEvent(new Event('input'));
    const asOf = el.querySelector<HTMLInputElement>('#memory-asof')!;
    asOf.value = '2026-11-01';
    asOf.dispatchEvent(new Event('input'));
    el.querySelector<HTMLFormElement>('form.search')!.dispatchEvent(new Event('submit'));
    const search = http.expectOne((r) => r.url === '/memories/search');
    expect(search.request.params.get('q')).toBe('freeze');
    expect(search.request.params.get('as_of')).toBe('2026-11-01');
    search.flush([{ memory: memory({ text: 'the freeze starts on 1 December' }), score: 0.5 }]);
    await vi.waitFor(async () => {
      await fixture.whenStable();
      expect(el.querySelector('[data-testid=search-summary]')?.textContent).toContain(
        '1 memory true on 1 Nov 2026 for “freeze”',
      );
    });

    el.querySelector<HTMLButtonElement>('#memory-tab-review')!.click();
    http
      .expectOne((r) => r.url === '/memories' && r.params.get('status') === 'proposed')
      .flush([
        memory({ id: 'memory:9', scope: 'team', status: 'proposed', owner: 'carol@acme.example' }),
      ]);
    await vi.waitFor(async () => {
      await fixture.whenStable();
      expect(el.querySelector('[data-testid=memory]')?.getAttribute('data-status')).toBe(
        'proposed',
      );
    });
    const accept = [...el.querySelectorAll('button')].find(
      (b) => b.textContent?.trim() === 'Accept and verify',
    )!;
    accept.click();
    const verify = http.expectOne('/memories/memory%3A9/verify');
    expect(verify.request.method).toBe('POST');
    verify.flush(memory({ id: 'memory:9', scope: 'team', status: 'verified' }));
    (await vi.waitFor(() => http.expectOne((r) => r.url === '/memories'))).flush([]);
    await vi.waitFor(async () => {
      await fixture.whenStable();
      expect(el.textContent).toContain('Nothing to review.');
    });
    http.verify();
  });

  it('describes who said a memory and who verified it', () => {
    const m = memory({
      scope: 'team',
      origin: 'admin',
      owner: 'alice@acme.example',
      status: 'verified',
      verified_by: 'alice@acme.example',
      verified_at: '2026-12-03T08:00:00+00:00',
    });
    expect(describeMemory(m)).toBe(
      'team · added by alice on 2 Dec 2026 · verified by alice on 3 Dec 2026',
    );
    expect(day('')).toBe('');
  });

  it('says how a verified answer stands', () => {
    const a = {
      memory: memory({ status: 'verified' }),
      question: 'q',
      expires_at: '2027-03-05T10:00:00+00:00',
      citations: ['jira:PAY-7'],
      flags: { expired: false, stale: false, changed: [] },
    };
    expect(standing(a)).toBe('expires on 5 Mar 2027');
    expect(
      standing({ ...a, flags: { expired: false, stale: true, changed: ['jira:PAY-7'] } }),
    ).toBe('stale: jira:PAY-7 changed since it was verified');
    expect(standing({ ...a, flags: { expired: true, stale: false, changed: [] } })).toBe(
      'expired on 5 Mar 2027',
    );
  });
});
