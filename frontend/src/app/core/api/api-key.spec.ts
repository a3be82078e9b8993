import { HttpClient, provideHttpClient, withInterceptors } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { firstValueFrom } from 'rxjs';

import { authInterceptor } from '../auth/auth-guard';
import { ApiKeyStore, apiKeyInterceptor } from './api-key';

describe('apiKeyInterceptor', () => {
  beforeEach(() => {
    localStorage.clear();
    TestBed.configureTestingModule({
      providers: [
        provideHttpClient(withInterceptors([authInterceptor, apiKeyInterceptor])),
        provideHttpClientTesting(),
      ],
    });
  });

  it('sends no header without a key and asks for one on 401', async () => {
    const http = TestBed.inject(HttpClient);
    const ctl = TestBed.inject(HttpTestingController);
    const keys = TestBed.inject(ApiKeyStore);
    const done = firstValueFrom(http.get('/graph')).catch(() => null);
    const req = ctl.expectOne('/graph');
    expect(req.request.headers.has('X-API-Key')).toBe(false);
    req.flush(
      { detail: 'missing or invalid API key' },
      { status: 401, statusText: 'Unauthorized' },
    );
    await done;
    ctl
      .expectOne('/auth/status')
      .flush({ accounts: false, user: null, oidc: null, demo_users: [] });
    await vi.waitFor(() => expect(keys.needed()).toBe(true));
  });

  it('sends the saved key', async () => {
    TestBed.inject(ApiKeyStore).save(' secret ');
    const http = TestBed.inject(HttpClient);
    const ctl = TestBed.inject(HttpTestingController);
    const done = firstValueFrom(http.get('/stats'));
    const req = ctl.expectOne('/stats');
    expect(req.request.headers.get('X-API-Key')).toBe('secret');
    req.flush({});
    await done;
    expect(localStorage.getItem('devkb.apiKey')).toBe('secret');
  });
});
