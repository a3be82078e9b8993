import {
  ChangeDetectionStrategy,
  Component,
  DestroyRef,
  computed,
  inject,
  signal,
} from '@angular/core';
import { RouterLink } from '@angular/router';

import type { Run, SourceStatus, Upload } from '../../core/api/models';

import { AuthStore } from '../../core/auth/auth-store';
import { DocTypeBadge } from '../../shared/doc-type';
import { SourcesStore, isFinished, progressPercent } from './sources-store';

/** "in 5 min", "3 h ago", from an ISO timestamp; empty for none. */
export function relativeTime(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '';
  const t = new Date(iso).getTime();
  if (Number.isNaN(t)) return iso;
  const s = Math.round((t - now) / 1000);
  const abs = Math.abs(s);
  const [value, unit] =
    abs < 45
      ? [0, 'now']
      : abs < 3600
        ? [Math.round(abs / 60), 'min']
        : abs < 86400
          ? [Math.round(abs / 3600), 'h']
          : [Math.round(abs / 86400), 'd'];
  if (unit === 'now') return 'just now';
  return s > 0 ? `in ${value} ${unit}` : `${value} ${unit} ago`;
}

/** What the drop zone says of a file the server indexed: a new document, or the next version
 *  of the person's document of that name. */
export function indexedLine(u: Upload | undefined): string {
  const title = `indexed as “${u?.title ?? ''}”`;
  if (u && u.version > 1) return `${title}, version ${u.version} of your document (private to you)`;
  return `${title} (private to you)`;
}

/** "3 versions": where "Your uploads" links to the document's history. */
export function versionsLabel(u: Upload): string {
  return `${u.versions} versions`;
}

/** Every source with status, last and next run, counts and last error; "Sync now" with live progress. */
@Component({
  selector: 'app-sources-page',
  imports: [DocTypeBadge, RouterLink],
  changeDetection: ChangeDetectionStrategy.OnPush,
  templateUrl: './sources-page.html',
  styleUrl: './sources-page.scss',
})
export class SourcesPage {
  protected readonly store = inject(SourcesStore);
  /** "Sync now" is an admin action: members do not see it. */
  protected readonly auth = inject(AuthStore);
  /** "Your uploads": the person's own indexed uploads, newest first (`GET /uploads`). */
  protected readonly mine = computed(() => {
    const me = (this.auth.user()?.email ?? 'operator').toLowerCase();
    return this.store
      .listed()
      .filter((u) => !u.quarantined && u.uploader.toLowerCase() === me)
      .sort((a, b) => b.uploaded_at.localeCompare(a.uploaded_at));
  });
  protected readonly size = fileSize;
  protected readonly indexedLine = indexedLine;
  protected readonly versionsLabel = versionsLabel;
  protected readonly uploadedOn = (iso: string) => new Date(iso).toLocaleString();

  protected async remove(u: Upload): Promise<void> {
    const all = u.versions > 1 ? ` and its ${u.versions} versions` : '';
    if (!confirm(`Delete “${u.filename}”${all}? It leaves the index: answers no longer cite it.`))
      return;
    await this.store.deleteUpload(u.id);
  }
  protected readonly rows = computed(() =>
    this.store.sources().map((s) => {
      const live = this.store.runs()[s.name];
      // The run this page is following (kept after it finishes), or one the server says is running.
      const run: Run | null =
        s.current_run && s.current_run.id !== live?.id ? s.current_run : (live ?? null);
      const running = !!run && !isFinished(run);
      return { s, run, running, percent: run ? progressPercent(run) : null };
    }),
  );

  constructor() {
    void this.store.load();
    void this.store.loadQuarantined();
    // Refresh now and then, so "next run" and schedule-triggered runs show up.
    const timer = setInterval(() => void this.store.load(), 15000);
    inject(DestroyRef).onDestroy(() => clearInterval(timer));
  }

  protected readonly dragging = signal(false);

  protected onDragOver(event: DragEvent): void {
    event.preventDefault();
    this.dragging.set(true);
  }

  protected onDrop(event: DragEvent): void {
    event.preventDefault();
    this.dragging.set(false);
    const files = Array.from(event.dataTransfer?.files ?? []);
    if (files.length) void this.store.upload(files);
  }

  protected onPick(input: HTMLInputElement): void {
    const files = Array.from(input.files ?? []);
    input.value = '';
    if (files.length) void this.store.upload(files);
  }

  protected rel(iso: string | null | undefined): string {
    return relativeTime(iso);
  }

  protected abs(iso: string | null | undefined): string {
    if (!iso) return '';
    const d = new Date(iso);
    return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
  }

  protected counts(s: SourceStatus): { key: string; value: number }[] {
    return syncCounts(s.counts);
  }

  protected statusLabel(status: string, running: boolean): string {
    if (running) return 'Syncing';
    return (
      { idle: 'Up to date', failed: 'Failed', 'never-synced': 'Never synced', running: 'Syncing' }[
        status
      ] ?? status
    );
  }
}

/** "12 KB", "1.4 MB", "512 bytes". */
export function fileSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * The last sync's counts in words that add up: the documents the source holds now, of which new
 * or updated in that sync and unchanged (the rest); deleted and unreadable (skipped) beside them.
 * How many passages were embedded is the indexer's business, not the reader's.
 */
export function syncCounts(c: Record<string, number>): { key: string; value: number }[] {
  if (c['documents'] === undefined) {
    return Object.entries(c)
      .filter(([key]) => key !== 'chunks_embedded')
      .map(([key, value]) => ({ key: key.replace(/_/g, ' '), value }));
  }
  const documents = c['documents'];
  const changed = Math.min(c['indexed'] ?? 0, documents);
  const out = [
    { key: documents === 1 ? 'document' : 'documents', value: documents },
    { key: 'new or updated', value: changed },
    { key: 'unchanged', value: documents - changed },
  ];
  if (c['deleted']) out.push({ key: 'deleted', value: c['deleted'] });
  if (c['skipped']) out.push({ key: 'could not be read', value: c['skipped'] });
  return out;
}
