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
import type { Change, SourceStatus } from '../../core/api/models';
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
    const day = c.at.slice(0, 10);
    const last = out[out.length - 1];
    if (last && last.day === day) last.items.push(c);
    else out.push({ day, items: [c] });
  }
  return out;
}

/** One change as a line: a version as the document panel writes it, or "created" / "comment". */
export function changeLine(c: Change): string {
  if (c.event === 'version' && c.version) return versionLine(c.version);
  const by = c.author ? ` · ${c.author}` : '';
  return `${c.at.slice(0, 10)} ${c.event === 'created' ? 'created' : 'comment'}${by}`;
}

/** "12 changes to 5 documents: 3 created, 4 comments, 5 edits or moves". */
export function summaryLine(changes: Change[]): string {
  const documents = new Set(changes.map((c) => c.document.id)).size;
  const n = (k: Change['event']) => changes.filter((c) => c.event === k).length;
  const parts = [
    [n('created'), 'created'],
    [n('comment'), n('comment') === 1 ? 'comment' : 'comments'],
    [n('version'), n('version') === 1 ? 'edit or move' : 'edits or moves'],
  ]
    .filter(([count]) => count)
    .map(([count, what]) => `${count} ${what}`);
  const head = `${changes.length} ${changes.length === 1 ? 'change' : 'changes'} to ${documents} ${
    documents === 1 ? 'document' : 'documents'
  }`;
  return parts.length ? `${head}: ${parts.join(', ')}` : head;
}

/** What the view reads from each kind of source (said when a person's range is empty). */
const COVERS: Record<string, string> = {
  jira: 'issues created, commented on and moved',
  confluence: 'pages edited and commented on',
  github: 'commits, pull requests and issues opened or commented on',
  uploads: 'uploads and their new versions',
};

/** "jira (issues created, …), wiki (pages …)": the configured sources this view covers. */
export function coveredSources(sources: SourceStatus[]): string {
  return sources
    .map((s) => {
      const what = COVERS[s.type.toLowerCase()];
      return what ? `${s.name} (${what})` : null;
    })
    .filter((x): x is string => !!x)
    .join(', ');
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
  protected readonly total = computed(() => (this.changes.value() ?? []).length);
  protected readonly summary = computed(() => summaryLine(this.changes.value() ?? []));
  protected readonly changeLine = changeLine;
  /** The sources the view covers: the one chosen, or every one this person is shown. */
  protected readonly covered = computed(() => {
    const all = this.sources.value() ?? [];
    const chosen = this.source();
    return coveredSources(chosen ? all.filter((s) => s.name === chosen) : all);
  });

  protected set(which: 'start' | 'end' | 'source', value: string): void {
    if (which === 'source') this.source.set(value);
    else if (/^\d{4}-\d{2}-\d{2}$/.test(value)) this[which].set(value);
  }

  protected errorOf(e: unknown): string {
    return toApiError(e).message;
  }
}
