import { provideHttpClient } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { provideRouter } from '@angular/router';

import { AuthStore } from '../../core/auth/auth-store';
import { TokensPage, curlExample, when } from './tokens-page';

describe('TokensPage', () => {
  it('lists, creates (showing the token once, with its curl line) and revokes tokens', async () => {
    TestBed.configureTestingModule({
      imports: [TokensPage],
      providers: [provideHttpClient(), provideHttpClientTesting(), provideRouter([])],
    });
    const http = TestBed.inject(HttpTestingController);
    const loaded = TestBed.inject(AuthStore).load();
    http.expectOne('/auth/status').flush({
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
    await loaded;
    const fixture = TestBed.createComponent(TokensPage);
    const el: HTMLElement = fixture.nativeElement;
    http.expectOne('/auth/tokens').flush([]);
    await fixture.whenStable();
    expect(el.textContent).toContain('No tokens yet.');

    const name = el.querySelector<HTMLInputElement>('#token-name')!;
    name.value = 'nightly report';
    name.dispatchEvent(new Event('input'));
    el.querySelector('form')!.dispatchEvent(new Event('submit'));
    const created = { id: 't1', name: 'nightly report', token: 'dkb_secret', created_at: 1.7e9 };
    const post = http.expectOne('/auth/tokens');
    expect(post.request.method).toBe('POST');
    expect(post.request.body).toEqual({ name: 'nightly report' });
    post.flush(created);
    const listed = { id: 't1', name: 'nightly report', created_at: 1.7e9, last_used: null };
    (await vi.waitFor(() => http.expectOne('/auth/tokens'))).flush([listed]);
    await vi.waitFor(async () => {
      await fixture.whenStable();
      expect(el.querySelector('[data-testid=token-value]')?.textContent).toBe('dkb_secret');
      expect(el.querySelector('.tokens li')?.textContent).toContain('never used');
    });
    expect(el.querySelector('[data-testid=token-curl]')?.textContent).toBe(
      curlExample('dkb_secret', location.origin),
    );

    el.querySelector<HTMLButtonElement>('[aria-label="Revoke nightly report"]')!.click();
    const del = http.expectOne('/auth/tokens/t1');
    expect(del.request.method).toBe('DELETE');
    del.flush(null, { status: 204, statusText: 'No Content' });
    (await vi.waitFor(() => http.expectOne('/auth/tokens'))).flush([]);
    await vi.waitFor(async () => {
      await fixture.whenStable();
      expect(el.querySelectorAll('.tokens li')).toHaveLength(0);
    });
    expect(el.querySelector('[data-testid=new-token]')).toBeNull(); // the revoked secret is gone
    http.verify();
  });

  it('builds the curl line and shows dates', () => {
    expect(curlExample('dkb_x', 'https://kb.acme.example')).toBe(
      `curl -H "Authorization: Bearer dkb_x" https://kb.acme.example/ask -d '{"question":"..."}' -H 'Content-Type: application/json'`,
    );
    expect(when(1.7e9)).toBe(new Date(1.7e12).toLocaleString());
    expect(when(null)).toBe('');
  });
});
