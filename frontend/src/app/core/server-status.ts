import { Injectable, inject, signal } from '@angular/core';
import { firstValueFrom } from 'rxjs';

import { ApiClient } from './api/api-client';
import { toApiError } from './api/api-error';
import type { Health } from './api/models';

/** `GET /health`, for the header: reachable or not, document count, LLM or extractive mode. */
@Injectable({ providedIn: 'root' })
export class ServerStatus {
  private readonly api = inject(ApiClient);
  readonly health = signal<Health | null>(null);
  readonly error = signal<string | null>(null);

  async refresh(): Promise<void> {
    try {
      this.health.set(await firstValueFrom(this.api.call('health')));
      this.error.set(null);
    } catch (e) {
      this.health.set(null);
      this.error.set(toApiError(e).message);
    }
  }
}
