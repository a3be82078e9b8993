import { HttpClient, provideHttpClient, withInterceptors } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { Component } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { Router, provideRouter } from '@angular/router';
import { firstValueFrom } from 'rxjs';

import { ApiKeyStore } from '../api/api-key';
import { authInterceptor, signInPageGuard, signedInGuard } from './auth-guard';
import { AuthStore, HARD_NAVIGATE, type AuthStatus, safeReturn } from './auth-store';

@Component({ template: 'page' })
class Page {}

const ALICE = {
  email: 'alice@acme.example',
  name: 'Alice',
  role: 'admin',
  disabled: false,
  sso: false,
};

function status(over: Partial<AuthStatus> = {}): AuthStatus {
  return { accounts: true, user: null, oidc: null, demo_users: [], ...over };
}

describe('auth guard and interceptor', () => {
  let http: HttpTestingController;
  let router: Router;
  let auth: AuthStore;
  const hardNavigate = vi.fn();

  beforeEach(() => {
    localStorage.clear();
    hardNavigate.mockReset();
    TestBed.configureTestingModule({
      providers: [
        provideHttpClient(withInterceptors([authInterceptor])),
        provideHttpClientTesting(),
        provideRouter([
          { path: 'signin', component: Page, canActivate: [signInPageGuard] },
          { path: 'explore', component: Page, canActivate: [signedInGuard] },
          { path: '**', component: Page, canActivate: [signedInGuard] },
        ]),
        { provide: HARD_NAVIGATE, useValue: hardNavigate },
      ],
    });
    http = TestBed.inject(HttpTestingController);
    router = TestBed.inject(Router);
    auth = TestBed.inject(AuthStore);
  });

  /** Loads `/auth/status` answered with `body`. */
  async function load(body: AuthStatus | null, code = 200): Promise<void> {
    const done = auth.load();
    const req = http.expectOne('/auth/status');
    if (body) req.flush(body);
    else req.flush({ detail: 'Not Found' }, { status: code, statusText: 'Error' });
    await done;
  }

  it('sends a signed-out user on a server with accounts to /signin, with the page to return to', async () => {
    await load(status());
    await router.navigateByUrl('/explore?focus=jira:PAY-7');
    expect(router.url).toBe('/signin?return=%2Fexplore%3Ffocus%3Djira:PAY-7');
  });

  it('lets every page open on a server without accounts (and one without /auth/status)', async () => {
    await load(status({ accounts: false }));
    expect(await router.navigateByUrl('/explore')).toBe(true);
    expect(router.url).toBe('/explore');
    await load(null, 404);
    expect(auth.accounts()).toBe(false);
    await router.navigateByUrl('/signin');
    expect(router.url).toBe('/'); // no sign-in page without accounts
  });

  it('loads the status itself when the app has not yet', async () => {
    const nav = router.navigateByUrl('/explore');
    (await vi.waitFor(() => http.expectOne('/auth/status'))).flush(status({ user: ALICE }));
    expect(await nav).toBe(true);
    expect(router.url).toBe('/explore');
  });

  it('sends a signed-in user away from /signin to the return page', async () => {
    await load(status({ user: ALICE }));
    await router.navigateByUrl('/signin?return=%2Fexplore');
    expect(router.url).toBe('/explore');
  });

  it('goes to /signin on a 401 from the API, but not on one from /auth/*', async () => {
    await load(status({ user: ALICE }));
    await router.navigateByUrl('/explore');
    const client = TestBed.inject(HttpClient);

    const login = firstValueFrom(client.post('/auth/login', {})).catch(() => null);
    http
      .expectOne('/auth/login')
      .flush({ detail: 'wrong e-mail or password' }, { status: 401, statusText: 'Unauthorized' });
    await login;
    expect(router.url).toBe('/explore');
    expect(auth.user()).toEqual(ALICE);

    const graph = firstValueFrom(client.get('/graph')).catch(() => null);
    http
      .expectOne('/graph')
      .flush({ detail: 'sign in first' }, { status: 401, statusText: 'Unauthorized' });
    await graph;
    expect(auth.user()).toBeNull();
    await vi.waitFor(() => expect(router.url).toBe('/signin?return=%2Fexplore'));
    expect(TestBed.inject(ApiKeyStore).needed()).toBe(false);
  });

  it('asks for the API key on a 401 when the server (still) has no accounts', async () => {
    await load(status({ accounts: false }));
    const graph = firstValueFrom(TestBed.inject(HttpClient).get('/graph')).catch(() => null);
    http
      .expectOne('/graph')
      .flush({ detail: 'missing or invalid API key' }, { status: 401, statusText: 'Unauthorized' });
    await graph;
    http.expectOne('/auth/status').flush(status({ accounts: false }));
    await vi.waitFor(() => expect(TestBed.inject(ApiKeyStore).needed()).toBe(true));
    expect(router.url).toBe('/');
  });

  it('goes to /signin when accounts were made after the page loaded', async () => {
    await load(status({ accounts: false }));
    await router.navigateByUrl('/explore');
    const client = TestBed.inject(HttpClient);
    const calls = ['/graph', '/stats'].map((u) => firstValueFrom(client.get(u)).catch(() => null));
    for (const u of ['/graph', '/stats'])
      http.expectOne(u).flush({ detail: 'sign in' }, { status: 401, statusText: 'Unauthorized' });
    await Promise.all(calls);
    http.expectOne('/auth/status').flush(status()); // asked once for both
    await vi.waitFor(() => expect(router.url).toBe('/signin?return=%2Fexplore'));
    expect(TestBed.inject(ApiKeyStore).needed()).toBe(false);
  });

  it('signs out with POST /auth/logout and a full load of /signin', async () => {
    await load(status({ user: ALICE }));
    const done = auth.signOut();
    const req = http.expectOne('/auth/logout');
    expect(req.request.method).toBe('POST');
    req.flush(null, { status: 204, statusText: 'No Content' });
    await done;
    expect(auth.user()).toBeNull();
    expect(hardNavigate).toHaveBeenCalledWith('/signin');
  });

  it('keeps return URLs inside the app', () => {
    expect(safeReturn('/explore?focus=x')).toBe('/explore?focus=x');
    expect(safeReturn('//evil.example/')).toBe('/');
    expect(safeReturn('https://evil.example/')).toBe('/');
    expect(safeReturn('/signin?return=/x')).toBe('/');
    expect(safeReturn(undefined)).toBe('/');
  });
});
