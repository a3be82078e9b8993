import { provideHttpClient, withInterceptors } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { Component } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { Router, provideRouter } from '@angular/router';

import { apiErrorInterceptor } from '../../core/api/api-error.interceptor';
import { authInterceptor } from '../../core/auth/auth-guard';
import { AuthStore, HARD_NAVIGATE, type AuthStatus } from '../../core/auth/auth-store';
import { SignInPage } from './signin-page';

@Component({ template: 'page' })
class Page {}

const DEMO: AuthStatus = {
  accounts: true,
  user: null,
  oidc: { name: 'Acme SSO', login_url: '/auth/oidc/login' },
  demo_users: [
    { email: 'alice@acme.example', password: 'pw-alice', role: 'admin', sees: 'everything' },
    { email: 'carol@acme.example', password: 'pw-carol', role: 'member', sees: 'Jira WEB only' },
  ],
};

describe('SignInPage', () => {
  let http: HttpTestingController;

  async function render(status: AuthStatus, returnUrl?: string) {
    TestBed.configureTestingModule({
      imports: [SignInPage],
      providers: [
        provideHttpClient(withInterceptors([apiErrorInterceptor, authInterceptor])),
        provideHttpClientTesting(),
        provideRouter([{ path: '**', component: Page }]),
        { provide: HARD_NAVIGATE, useValue: vi.fn() },
      ],
    });
    http = TestBed.inject(HttpTestingController);
    const loaded = TestBed.inject(AuthStore).load();
    http.expectOne('/auth/status').flush(status);
    await loaded;
    const fixture = TestBed.createComponent(SignInPage);
    if (returnUrl) fixture.componentRef.setInput('return', returnUrl);
    await fixture.whenStable();
    return { fixture, el: fixture.nativeElement as HTMLElement };
  }

  const input = (el: HTMLElement, id: string) => el.querySelector<HTMLInputElement>(`#${id}`)!;
  const button = (el: HTMLElement, label: string) =>
    [...el.querySelectorAll<HTMLButtonElement>('button')].find(
      (b) => (b.getAttribute('aria-label') ?? b.textContent?.trim()) === label,
    )!;

  it('lists the demo users; "Fill in" puts one into the form', async () => {
    const { fixture, el } = await render(DEMO);
    const people = el.querySelectorAll('.people li');
    expect(people).toHaveLength(2);
    expect(people[1].textContent).toContain('carol@acme.example');
    expect(people[1].textContent).toContain('member');
    expect(people[1].textContent).toContain('Jira WEB only');
    expect(people[1].textContent).toContain('pw-carol');
    button(el, 'Fill in the form as carol@acme.example').click();
    await fixture.whenStable();
    expect(input(el, 'signin-email').value).toBe('carol@acme.example');
    expect(input(el, 'signin-password').value).toBe('pw-carol');
    const sso = el.querySelector<HTMLAnchorElement>('a.sso')!;
    expect(sso.textContent?.trim()).toBe('Sign in with Acme SSO');
    expect(sso.getAttribute('href')).toBe('/auth/oidc/login');
    http.verify();
  });

  it("shows the API's message when the password is wrong, and stays", async () => {
    const { fixture, el } = await render({ ...DEMO, demo_users: [], oidc: null });
    expect(el.querySelector('.people')).toBeNull();
    expect(el.querySelector('a.sso')).toBeNull();
    input(el, 'signin-email').value = 'bob@acme.example';
    input(el, 'signin-email').dispatchEvent(new Event('input'));
    input(el, 'signin-password').value = 'nope';
    input(el, 'signin-password').dispatchEvent(new Event('input'));
    await fixture.whenStable();
    el.querySelector('form')!.dispatchEvent(new Event('submit'));
    const req = http.expectOne('/auth/login');
    expect(req.request.method).toBe('POST');
    expect(req.request.body).toEqual({ email: 'bob@acme.example', password: 'nope' });
    req.flush({ detail: 'wrong e-mail or password' }, { status: 401, statusText: 'Unauthorized' });
    await vi.waitFor(async () => {
      await fixture.whenStable();
      expect(el.querySelector('[role=alert]')?.textContent?.trim()).toBe(
        'wrong e-mail or password',
      );
    });
    await vi.waitFor(async () => {
      await fixture.whenStable();
      expect(input(el, 'signin-password').value).toBe('');
    });
    expect(TestBed.inject(AuthStore).user()).toBeNull();
  });

  it('says what is missing before asking the server', async () => {
    const { fixture, el } = await render(DEMO);
    el.querySelector('form')!.dispatchEvent(new Event('submit'));
    await fixture.whenStable();
    expect(el.querySelector('[role=alert]')?.textContent?.trim()).toBe(
      'Enter your e-mail address.',
    );
    http.verify();
  });

  it('signs in as a demo user at once and goes back to the return page', async () => {
    const { el } = await render(DEMO, '/explore?focus=jira:WEB-3');
    button(el, 'Sign in as carol@acme.example').click();
    const req = http.expectOne('/auth/login');
    expect(req.request.body).toEqual({ email: 'carol@acme.example', password: 'pw-carol' });
    const carol = {
      email: 'carol@acme.example',
      name: 'Carol',
      role: 'member',
      disabled: false,
      sso: false,
    };
    req.flush({ user: carol });
    const router = TestBed.inject(Router);
    await vi.waitFor(() => expect(router.url).toBe('/explore?focus=jira:WEB-3'));
    expect(TestBed.inject(AuthStore).user()).toEqual(carol);
  });
});
