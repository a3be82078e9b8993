import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import { FormsModule } from '@angular/forms';
import { firstValueFrom } from 'rxjs';

import { ApiClient } from '../../core/api/api-client';
import { toApiError } from '../../core/api/api-error';
import type { ApiToken, NewApiToken } from '../../core/api/models';
import { AuthStore } from '../../core/auth/auth-store';

/** A date from seconds since the epoch (the API's) or an ISO string; empty for none. */
export function when(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return '';
  const d = new Date(typeof value === 'number' ? value * 1000 : value);
  return Number.isNaN(d.getTime()) ? String(value) : d.toLocaleString();
}

/** The one-line example for a new token: ask devkb a question with it. */
export function curlExample(token: string, origin: string): string {
  return (
    `curl -H "Authorization: Bearer ${token}" ${origin}/ask ` +
    `-d '{"question":"..."}' -H 'Content-Type: application/json'`
  );
}

/** `/tokens`: the signed-in user's API tokens for scripts — list, create (the secret shown once), revoke. */
@Component({
  selector: 'app-tokens-page',
  imports: [FormsModule],
  changeDetection: ChangeDetectionStrategy.OnPush,
  templateUrl: './tokens-page.html',
  styleUrl: './tokens-page.scss',
})
export class TokensPage {
  private readonly api = inject(ApiClient);
  protected readonly auth = inject(AuthStore);
  protected readonly tokens = signal<ApiToken[]>([]);
  protected readonly loading = signal(false);
  protected readonly error = signal<string | null>(null);
  protected readonly name = signal('');
  protected readonly created = signal<NewApiToken | null>(null);
  protected readonly copied = signal(false);
  protected readonly curl = computed(() => {
    const t = this.created();
    return t ? curlExample(t.token, location.origin) : '';
  });
  protected readonly when = when;

  constructor() {
    if (this.auth.accounts()) void this.load();
  }

  async load(): Promise<void> {
    this.loading.set(true);
    try {
      this.tokens.set(await firstValueFrom(this.api.call('listTokens')));
      this.error.set(null);
    } catch (e) {
      this.error.set(toApiError(e).message);
    } finally {
      this.loading.set(false);
    }
  }

  protected async create(): Promise<void> {
    const name = this.name().trim();
    if (!name) {
      this.error.set('Give the token a name, e.g. the script that will use it.');
      return;
    }
    try {
      const token = await firstValueFrom(this.api.call('createToken', { body: { name } }));
      this.created.set(token);
      this.copied.set(false);
      this.name.set('');
      this.error.set(null);
      await this.load();
    } catch (e) {
      this.error.set(toApiError(e).message);
    }
  }

  protected async revoke(token: ApiToken): Promise<void> {
    try {
      await firstValueFrom(this.api.call('revokeToken', { path: { token_id: token.id } }), {
        defaultValue: null,
      });
      if (this.created()?.id === token.id) this.created.set(null);
      await this.load();
    } catch (e) {
      this.error.set(toApiError(e).message);
    }
  }

  protected async copy(text: string): Promise<void> {
    try {
      await navigator.clipboard.writeText(text);
      this.copied.set(true);
    } catch {
      this.copied.set(false);
      this.error.set('Could not copy: select the token and copy it yourself.');
    }
  }
}
