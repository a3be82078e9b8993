import { provideHttpClient } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { provideRouter } from '@angular/router';

import { AuthStore } from '../../core/auth/auth-store';
import { AdminPage, syncSummary } from './admin-page';

const ALICE = {
  email: 'alice@acme.example',
  name: 'Alice',
  role: 'admin',
  disabled: false,
  sso: false,
};
const CAROL = { ...ALICE, email: 'carol@acme.example', name: 'Carol', role: 'member' };
const ERIN = { ...ALICE, email: 'erin@acme.example', name: 'Erin', role: 'member', sso: true };
const JIRA = {
  source: 'jira',
  state: 'ok',
  last_run: '2026-11-25T10:00:00+00:00',
  last_success: '2026-11-25T10:00:00+00:00',
  pairs: 12,
  error: null,
  seconds: 0.2,
};

async function setUp(user: typeof ALICE) {
  TestBed.configureTestingModule({
    imports: [AdminPage],
    providers: [provideHttpClient(), provideHttpClientTesting(), provideRouter([])],
  });
  const http = TestBed.inject(HttpTestingController);
  const loaded = TestBed.inject(AuthStore).load();
  http.expectOne('/auth/status').flush({ accounts: true, user, oidc: null, demo_users: [] });
  await loaded;
  const fixture = TestBed.createComponent(AdminPage);
  const el: HTMLElement = fixture.nativeElement;
  /** Waits until `check` passes on the rendered page. */
  const until = (check: () => void) =>
    vi.waitFor(async () => {
      await fixture.whenStable();
      check();
    });
  return { http, fixture, el, until };
}

function type(el: HTMLElement, selector: string, value: string): void {
  const input = el.querySelector<HTMLInputElement | HTMLSelectElement>(selector)!;
  input.value = value;
  input.dispatchEvent(new Event(input instanceof HTMLSelectElement ? 'change' : 'input'));
}

const NOT_FOUND = { status: 404, statusText: 'Not Found' };
/** The retrieval card's first read: never adapted, not evaluated (retrieval-card.spec.ts tests it). */
const NEVER_ADAPTED = {
  enabled: true,
  status: {
    state: 'idle',
    stage: '',
    done: 0,
    total: 0,
    started: '',
    finished: '',
    error: '',
    edges_seen: 0,
  },
  in_use_with_anchor: false,
  in_use_text_only: false,
  method_with_anchor: 'defaults',
  method_text_only: 'defaults',
  decision: null,
  note: '',
  test_from: null,
  train_pairs: null,
  test_pairs: null,
  figures: [],
  evaluated: null,
};

describe('AdminPage', () => {
  it('lists users, changes a role, shows the API’s refusal, disables and adds a user', async () => {
    const { http, fixture, el, until } = await setUp(ALICE);
    http.expectOne('/admin/users').flush([ALICE, CAROL, ERIN]);
    http.expectOne('/admin/shared').flush({ changed: 0, shared: [] });
    http.expectOne('/admin/permissions').flush({ interval_minutes: 15, sources: [JIRA] });
    await until(() => expect(el.querySelectorAll('tbody tr')).toHaveLength(3));
    http.expectOne('/admin/retrieval/adaptation').flush(NEVER_ADAPTED);
    http.expectOne('/admin/reviewers').flush([]); // the reviewers card (reviewers-card.spec.ts)
    const erin = el.querySelector('tr[data-email="erin@acme.example"]')!;
    expect(erin.textContent).toContain('SSO');
    expect(erin.textContent).toContain('Active');
    expect(el.querySelector('tr[data-email="alice@acme.example"]')!.textContent).toContain('(you)');

    // role: PATCH with the new role
    type(el, 'select[aria-label="Role of carol@acme.example"]', 'admin');
    const role = http.expectOne('/admin/users/carol%40acme.example');
    expect(role.request.method).toBe('PATCH');
    expect(role.request.body).toEqual({ role: 'admin' });
    role.flush({ ...CAROL, role: 'admin' });
    await until(() => expect(el.querySelector('.note')?.textContent).toContain('role admin'));

    // disabling yourself: the API's detail, shown as it is
    el.querySelector<HTMLButtonElement>('[aria-label="Disable alice@acme.example"]')!.click();
    const self = http.expectOne('/admin/users/alice%40acme.example');
    expect(self.request.body).toEqual({ disabled: true });
    const detail = 'you cannot disable yourself or take away your own admin role';
    self.flush({ detail }, { status: 400, statusText: 'Bad Request' });
    await until(() =>
      expect(el.querySelector('[data-testid=users-error]')?.textContent).toBe(detail),
    );

    // a role change the API refuses: the select goes back
    type(el, 'select[aria-label="Role of alice@acme.example"]', 'member');
    http
      .expectOne('/admin/users/alice%40acme.example')
      .flush({ detail }, { status: 400, statusText: 'Bad Request' });
    await until(() =>
      expect(
        el.querySelector<HTMLSelectElement>('select[aria-label="Role of alice@acme.example"]')!
          .value,
      ).toBe('admin'),
    );

    // disable erin
    el.querySelector<HTMLButtonElement>('[aria-label="Disable erin@acme.example"]')!.click();
    http.expectOne('/admin/users/erin%40acme.example').flush({ ...ERIN, disabled: true });
    await until(() => {
      expect(el.querySelector('[data-testid=users-error]')).toBeNull();
      expect(el.querySelector('[aria-label="Enable erin@acme.example"]')).not.toBeNull();
      expect(el.querySelector('tr[data-email="erin@acme.example"]')!.textContent).toContain(
        'Disabled',
      );
    });

    // add a user
    type(el, 'input[name=email]', 'frank@acme.example');
    type(el, 'input[name=name]', 'Frank');
    type(el, 'select[name=role]', 'admin');
    type(el, 'input[name=password]', 'correct horse');
    await fixture.whenStable(); // the form shows what was typed, as in a browser
    el.querySelector<HTMLFormElement>('form.add')!.dispatchEvent(new Event('submit'));
    const add = http.expectOne((r) => r.url === '/admin/users' && r.method === 'POST');
    expect(add.request.body).toEqual({
      email: 'frank@acme.example',
      name: 'Frank',
      role: 'admin',
      password: 'correct horse',
    });
    const frank = { ...ALICE, email: 'frank@acme.example', name: 'Frank' };
    add.flush(frank);
    (await vi.waitFor(() => http.expectOne('/admin/users'))).flush([ALICE, CAROL, ERIN, frank]);
    await until(() => {
      expect(el.querySelectorAll('tbody tr')).toHaveLength(4);
      expect(el.querySelector('.note')?.textContent).toContain('Added frank@acme.example');
      expect(el.querySelector<HTMLInputElement>('input[name=email]')!.value).toBe('');
    });
    http.verify();
  });

  it('shares and unshares documents, showing an unknown id’s 404, and syncs permissions', async () => {
    const { http, el, until } = await setUp(ALICE);
    http.expectOne('/admin/users').flush([ALICE]);
    http.expectOne('/admin/shared').flush({ changed: 0, shared: [] });
    http.expectOne('/admin/permissions').flush({
      interval_minutes: 15,
      sources: [{ ...JIRA, state: 'never', last_run: null, pairs: 0 }],
    });
    await until(() => expect(el.textContent).toContain('Nothing is shared with everyone.'));
    http.expectOne('/admin/retrieval/adaptation').flush(NEVER_ADAPTED);
    http.expectOne('/admin/reviewers').flush([]); // the reviewers card (reviewers-card.spec.ts)
    expect(el.querySelector('[data-source=jira]')!.textContent).toContain('never run');

    type(el, '#share-id', 'jira:NOPE-1');
    el.querySelector<HTMLButtonElement>('form.inline button[type=submit]')!.click();
    const missing = http.expectOne('/admin/shared');
    expect(missing.request.body).toEqual({ document_ids: ['jira:NOPE-1'], shared: true });
    missing.flush({ detail: 'no such documents: jira:NOPE-1' }, NOT_FOUND);
    await until(() =>
      expect(el.querySelector('[data-testid=shared-error]')?.textContent).toBe(
        'no such documents: jira:NOPE-1',
      ),
    );

    type(el, '#share-id', ' jira:PAY-90 ');
    el.querySelector<HTMLButtonElement>('form.inline button[type=submit]')!.click();
    const share = http.expectOne('/admin/shared');
    expect(share.request.body).toEqual({ document_ids: ['jira:PAY-90'], shared: true });
    share.flush({ changed: 1, shared: ['jira:PAY-90'] });
    await until(() => {
      expect(el.querySelector('[data-testid=shared-error]')).toBeNull();
      expect(el.querySelector('li[data-document-id="jira:PAY-90"]')).not.toBeNull();
    });

    el.querySelector<HTMLButtonElement>('[aria-label="Unshare jira:PAY-90"]')!.click();
    const unshare = http.expectOne('/admin/shared');
    expect(unshare.request.body).toEqual({ document_ids: ['jira:PAY-90'], shared: false });
    unshare.flush({ changed: 1, shared: [] });
    await until(() => expect(el.querySelectorAll('.shared li')).toHaveLength(0));

    const button = [...el.querySelectorAll('button')].find((b) =>
      b.textContent?.includes('Sync permissions now'),
    )!;
    button.click();
    const sync = http.expectOne('/admin/permissions/sync');
    expect(sync.request.method).toBe('POST');
    await until(() => expect(button.textContent).toContain('Syncing'));
    sync.flush({ interval_minutes: 15, sources: [JIRA] });
    await until(() => {
      expect(el.querySelector('[data-testid=sync-result]')?.textContent).toBe(
        'Synced. jira: ok (12 pairs)',
      );
      expect(el.querySelector('[data-source=jira] [data-testid=perm-state]')?.textContent).toBe(
        'ok',
      );
    });
    http.verify();
  });

  it('tells a member the page is for admins and asks the API nothing', async () => {
    const { http, el, until } = await setUp(CAROL);
    await until(() => expect(el.querySelector('[data-testid=admins-only]')).not.toBeNull());
    expect(el.querySelector('table')).toBeNull();
    expect(el.textContent).not.toContain('Sync permissions now');
    expect(el.querySelector('[data-testid=retrieval-card]')).toBeNull();
    http.verify();
  });

  it('sums up a sync', () => {
    expect(syncSummary([])).toBe('No source mirrors permissions.');
    expect(
      syncSummary([JIRA, { ...JIRA, source: 'confluence', state: 'failed', error: 'boom' }]),
    ).toBe('jira: ok (12 pairs) · confluence: failed');
  });
});
