import { Injectable, InjectionToken, computed, inject, signal } from '@angular/core';
import { Router } from '@angular/router';
import { firstValueFrom } from 'rxjs';

import { ApiClient } from '../api/api-client';
import { ApiKeyStore } from '../api/api-key';
import type { AuthStatus as StatusBody, AuthUser } from '../api/models';

export type { AuthUser, DemoUser } from '../api/models';

/** `GET /auth/status` (open on every server), every part filled in. */
export type AuthStatus = Required<StatusBody>;

export const SIGN_IN_ROUTE = '/signin';

/** A server without accounts (or one older than accounts): the app works as before. */
export const NO_ACCOUNTS: AuthStatus = { accounts: false, user: null, oidc: null, demo_users: [] };

/** A full page load of `url`: drops every in-memory store, so nothing of one user stays for the next. */
export const HARD_NAVIGATE = new InjectionToken<(url: string) => void>('HARD_NAVIGATE', {
  providedIn: 'root',
  factory: () => (url: string) => location.assign(url),
});

/** Whether `url` is one of the API's account routes (`/auth/...`), with or without an origin. */
export function isAuthPath(url: string): boolean {
  let path = url;
  try {
    path = new URL(url, 'http://x').pathname;
  } catch {
    /* keep it as given */
  }
  return path === '/auth' || path.startsWith('/auth/');
}

/** A return URL that stays in this app: a path (not `//host`), never the sign-in page itself. */
export function safeReturn(url: string | null | undefined): string {
  if (!url || !url.startsWith('/') || url.startsWith('//') || url.startsWith('/\\')) return '/';
  if (url === SIGN_IN_ROUTE || url.startsWith(SIGN_IN_ROUTE + '?')) return '/';
  return url;
}

/**
 * Who is signed in, from `GET /auth/status` (loaded before the first route). With no accounts on
 * the server (`accounts: false`) nothing changes: no sign-in page, no user menu. With accounts,
 * every page but /signin needs a signed-in user, and a 401 from the API leads to /signin.
 */
@Injectable({ providedIn: 'root' })
export class AuthStore {
  private readonly api = inject(ApiClient);
  private readonly router = inject(Router);
  private readonly keys = inject(ApiKeyStore);
  private readonly hardNavigate = inject(HARD_NAVIGATE);

  readonly status = signal<AuthStatus>(NO_ACCOUNTS);
  readonly loaded = signal(false);
  readonly accounts = computed(() => this.status().accounts);
  readonly user = computed(() => this.status().user);
  /** The app's pages may load: no accounts on this server, or someone is signed in. */
  readonly open = computed(() => !this.accounts() || !!this.user());
  /** May run admin actions and see setup hints: an admin, or the single user of a server without accounts. */
  readonly isAdmin = computed(() => !this.accounts() || this.user()?.role === 'admin');
  /** Someone was signed in earlier in this page's life: in-memory stores may hold their documents. */
  private hadUser = false;
  /** The last sign-in followed another session in this page: continue by a full page load. */
  private stale = false;
  /** The status asked again after a 401, shared by the requests that failed together. */
  private recheck: Promise<AuthStatus> | null = null;

  /** Loads `/auth/status`; a server that does not answer it is taken as one without accounts. */
  async load(): Promise<AuthStatus> {
    try {
      const s: Partial<StatusBody> | null = await firstValueFrom(this.api.call('authStatus'));
      this.setStatus({
        accounts: !!s?.accounts,
        user: s?.user ?? null,
        oidc: s?.oidc ?? null,
        demo_users: Array.isArray(s?.demo_users) ? s.demo_users : [],
      });
    } catch {
      // 404 on an older server; unreachable: the pages say so themselves
      if (!this.loaded()) this.setStatus(NO_ACCOUNTS);
    }
    this.loaded.set(true);
    return this.status();
  }

  /** `POST /auth/login`; throws the API's error (its `detail` is the message to show). */
  async signIn(email: string, password: string): Promise<AuthUser> {
    const res = await firstValueFrom(this.api.call('login', { body: { email, password } }));
    this.stale = this.hadUser;
    this.setStatus({ ...this.status(), accounts: true, user: res.user });
    return res.user;
  }

  /** After signing in: the page the user came from, by a full load when another user was here before. */
  async continueTo(returnUrl: string | null | undefined): Promise<void> {
    const url = safeReturn(returnUrl);
    if (this.stale) this.hardNavigate(url);
    else await this.router.navigateByUrl(url);
  }

  /** `POST /auth/logout`, then the sign-in page by a full load (no documents stay in memory). */
  async signOut(): Promise<void> {
    try {
      await firstValueFrom(this.api.call('logout'), { defaultValue: null });
    } catch {
      /* the session is gone or the server is down: signed out here either way */
    }
    this.setStatus({ ...this.status(), user: null });
    this.hardNavigate(SIGN_IN_ROUTE);
  }

  /**
   * The API answered 401. With accounts the session is missing or over: to /signin, back to this
   * page afterwards. Without accounts as far as this page knows, the status is asked again (the
   * first account may have been made since, or the server was unreachable at start): still none,
   * and it is the API key (DEVKB_API_KEY) that the server wants.
   */
  unauthorized(): void {
    if (this.accounts()) {
      this.toSignIn();
      return;
    }
    this.recheck ??= this.load().finally(() => (this.recheck = null));
    void this.recheck.then((s) => (s.accounts ? this.toSignIn() : this.keys.needed.set(true)));
  }

  private toSignIn(): void {
    if (this.user()) this.setStatus({ ...this.status(), user: null });
    const current = this.router.url;
    if (current === SIGN_IN_ROUTE || current.startsWith(SIGN_IN_ROUTE + '?')) return;
    void this.router.navigate([SIGN_IN_ROUTE], { queryParams: { return: safeReturn(current) } });
  }

  private setStatus(status: AuthStatus): void {
    if (status.user) this.hadUser = true;
    this.status.set(status);
  }
}
