import {
  ChangeDetectionStrategy,
  Component,
  computed,
  inject,
  resource,
  signal,
} from '@angular/core';
import { RouterLink } from '@angular/router';
import { firstValueFrom } from 'rxjs';

import { ApiClient } from '../../core/api/api-client';
import { toApiError } from '../../core/api/api-error';
import type { Change } from '../../core/api/models';
import { DocTypeBadge } from '../../shared/doc-type';
import { versionLine } from '../graph/document-panel';

/** `YYYY-MM-DD` of a date, in UTC (the API's days are UTC days). */
export function isoDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** Changes grouped by day, newest day first (the API lists them newest first). */
export function byDay(changes: Change[]): { day: string; items: Change[] }[] {
  const out: { day: string; items: Change[] }[] = [];
  for (const c of changes) {
    const day = c.version.valid_from.slice(0, 10);
    const last = out[out.length - 1];
    if (last && last.day === day) last.items.push(c);
    else out.push({ day, items: [c] });
  }
  return out;
}

/** "What changed": the changes of one source (or all) in a date range, newest first. */
@Component({
  selector: 'app-changes-page',
  imports: [DocTypeBadge, RouterLink],
  changeDetection: ChangeDetectionStrategy.OnPush,
  templateUrl: './changes-page.html',
  styleUrl: './changes-page.scss',
})
export class ChangesPage {
  private readonly api = inject(ApiClient);
  protected readonly versionLine = versionLine;

  protected readonly source = signal('');
  protected readonly start = signal(isoDay(new Date(Date.now() - 365 * 86_400_000)));
  protected readonly end = signal(isoDay(new Date()));

  protected readonly sources = resource({
    loader: () => firstValueFrom(this.api.call('listSources')),
  });
  protected readonly changes = resource({
    params: () => ({ start: this.start(), end: this.end(), source: this.source() }),
    loader: ({ params }) =>
      firstValueFrom(
        this.api.call('listChanges', {
          query: {
            start: params.start,
            end: params.end,
            ...(params.source ? { source: params.source } : {}),
            limit: 500,
          },
        }),
      ),
  });
  protected readonly days = computed(() => byDay(this.changes.value() ?? []));
  protected readonly counts = computed(() => {
    const all = this.changes.value() ?? [];
    return {
      total: all.length,
      documents: new Set(all.map((c) => c.document.id)).size,
    };
  });

  protected set(which: 'start' | 'end' | 'source', value: string): void {
    if (which === 'source') this.source.set(value);
    else if (/^\d{4}-\d{2}-\d{2}$/.test(value)) this[which].set(value);
  }

  protected errorOf(e: unknown): string {
    return toApiError(e).message;
  }
}
