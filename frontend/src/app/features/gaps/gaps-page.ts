import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import { RouterLink } from '@angular/router';
import { firstValueFrom } from 'rxjs';

import { ApiClient } from '../../core/api/api-client';
import { toApiError } from '../../core/api/api-error';
import type { components } from '../../core/api/schema';
import { AuthStore } from '../../core/auth/auth-store';

type S = components['schemas'];
export type GapReport = S['GapReportOut'];
export type GapTopic = S['GapTopicOut'];
export type GapKind = 'not_found' | 'low_confidence' | 'thumbs_down';

export const KIND_LABELS: Record<GapKind, string> = {
  not_found: 'not found',
  low_confidence: 'low confidence',
  thumbs_down: 'voted down',
};

export const PERIODS: readonly { days: number | null; label: string }[] = [
  { days: 7, label: 'Last 7 days' },
  { days: 30, label: 'Last 30 days' },
  { days: 90, label: 'Last 90 days' },
  { days: null, label: 'Everything kept' },
];

/** "2 not found · 1 voted down" for a topic's kinds. */
export function kindsText(kinds: Record<string, number>): string {
  return Object.entries(kinds)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, n]) => `${n} ${KIND_LABELS[k as GapKind] ?? k.replace(/_/g, ' ')}`)
    .join(' · ');
}

/**
 * `/gaps` ("Knowledge gaps", admins only): what people asked that the sources could not answer —
 * answers "not found", with low confidence, or voted down — grouped by topic with counts and the
 * closest documents (`GET /admin/gaps`). A member sees only a note that the page is for admins.
 */
@Component({
  selector: 'app-gaps-page',
  imports: [RouterLink],
  changeDetection: ChangeDetectionStrategy.OnPush,
  templateUrl: './gaps-page.html',
  styleUrl: './gaps-page.scss',
})
export class GapsPage {
  private readonly api = inject(ApiClient);
  protected readonly auth = inject(AuthStore);
  /** Without accounts the server decides (loopback or API key); with accounts only admins. */
  protected readonly allowed = computed(
    () => !this.auth.accounts() || this.auth.user()?.role === 'admin',
  );
  protected readonly periods = PERIODS;
  protected readonly kindLabels = KIND_LABELS;
  protected readonly kinds = Object.keys(KIND_LABELS) as GapKind[];
  protected readonly kindsText = kindsText;

  protected readonly days = signal<number | null>(30);
  protected readonly kind = signal<GapKind | ''>('');
  protected readonly report = signal<GapReport | null>(null);
  protected readonly loading = signal(false);
  protected readonly error = signal<string | null>(null);

  constructor() {
    if (this.allowed()) void this.load();
  }

  async load(): Promise<void> {
    this.loading.set(true);
    try {
      const days = this.days();
      const kind = this.kind();
      const query: { days?: number; kind?: GapKind[] } = {};
      if (days !== null) query.days = days;
      if (kind) query.kind = [kind];
      this.report.set(await firstValueFrom(this.api.call('listKnowledgeGaps', { query })));
      this.error.set(null);
    } catch (e) {
      this.error.set(toApiError(e).message);
    } finally {
      this.loading.set(false);
    }
  }

  protected setDays(value: string): void {
    this.days.set(value === '' ? null : Number(value));
    void this.load();
  }

  protected setKind(value: string): void {
    this.kind.set(value in KIND_LABELS ? (value as GapKind) : '');
    void this.load();
  }

  protected when(iso: string): string {
    const d = new Date(iso);
    return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
  }
}
