import { provideHttpClient } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { provideRouter } from '@angular/router';

import { App, modelSentence } from './app';
import { AuthStore, HARD_NAVIGATE, type AuthStatus } from './core/auth/auth-store';

describe('App shell', () => {
  async function render(status: AuthStatus) {
    const hardNavigate = vi.fn();
    TestBed.configureTestingModule({
      imports: [App],
      providers: [
        provideHttpClient(),
        provideHttpClientTesting(),
        provideRouter([]),
        { provide: HARD_NAVIGATE, useValue: hardNavigate },
      ],
    });
    const http = TestBed.inject(HttpTestingController);
    const loaded = TestBed.inject(AuthStore).load();
    http.expectOne('/auth/status').flush(status);
    await loaded;
    const fixture = TestBed.createComponent(App);
    await fixture.whenStable();
    return { fixture, http, hardNavigate, el: fixture.nativeElement as HTMLElement };
  }

  it('shows the signed-in user and signs out', async () => {
    const { fixture, http, hardNavigate, el } = await render({
      accounts: true,
      user: {
        email: 'dave@acme.example',
        name: 'Dave',
        role: 'member',
        disabled: false,
        sso: false,
      },
      oidc: null,
      demo_users: [],
    });
    http.expectOne('/health');
    expect(el.querySelector('[data-testid=account-email]')?.textContent).toBe('dave@acme.example');
    expect(el.querySelector('[data-testid=account-role]')?.textContent).toBe('member');
    expect(el.querySelector('a[href="/tokens"]')?.textContent).toBe('API tokens');
    [...el.querySelectorAll('button')].find((b) => b.textContent === 'Sign out')!.click();
    http.expectOne('/auth/logout').flush(null, { status: 204, statusText: 'No Content' });
    await vi.waitFor(() => expect(hardNavigate).toHaveBeenCalledWith('/signin'));
    await fixture.whenStable();
    expect(el.querySelector('[data-testid=account]')).toBeNull();
    expect(el.querySelector('nav')).toBeNull();
  });

  it('has no user menu and no sign-in without accounts', async () => {
    const { http, el } = await render({
      accounts: false,
      user: null,
      oidc: null,
      demo_users: [],
    });
    http.expectOne('/health');
    expect(el.querySelector('[data-testid=account]')).toBeNull();
    expect(el.querySelector('nav')?.textContent).toContain('Sources');
  });

  it('asks nothing of the API but who is signed in while signed out', async () => {
    const { http, el } = await render({ accounts: true, user: null, oidc: null, demo_users: [] });
    http.verify(); // no /health before signing in
    expect(el.querySelector('nav')).toBeNull();
  });
});

describe('modelSentence', () => {
  it('says in a sentence how answers are made, never the raw error', () => {
    const down = modelSentence(
      false,
      'Ollama not reachable at http://127.0.0.1:11434: ConnectError',
    );
    expect(down).toContain('not reachable right now');
    expect(down).not.toMatch(/http|ConnectError|11434/);
    expect(modelSentence(true, 'none: extractive answers')).toContain(
      'No language model is set up',
    );
    expect(modelSentence(true, 'ollama: llama3.2')).toBe(
      'Answers are written by a language model (ollama) from the sources.',
    );
    expect(modelSentence(false, 'KeyError: x')).not.toContain('KeyError');
  });
});
