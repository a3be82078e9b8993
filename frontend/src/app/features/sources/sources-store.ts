import { Injectable, inject, signal } from '@angular/core';
import { firstValueFrom } from 'rxjs';

import { ApiClient } from '../../core/api/api-client';
import { ApiError, toApiError } from '../../core/api/api-error';
import type { Run, SourceStatus, Upload } from '../../core/api/models';

export const POLL_MS = 700;

export function isFinished(run: Pick<Run, 'state'>): boolean {
  return run.state === 'succeeded' || run.state === 'failed';
}

/** Percent done of a run, or null while its total is unknown. */
export function progressPercent(run: Pick<Run, 'done' | 'total' | 'state'>): number | null {
  if (run.state === 'succeeded') return 100;
  if (!run.total) return null;
  return Math.max(0, Math.min(100, Math.round((run.done / run.total) * 100)));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One file dropped on the page: sending, indexed (with its document), or refused (with why). */
export interface UploadItem {
  name: string;
  state: 'sending' | 'done' | 'failed';
  upload?: Upload;
  message?: string;
}

/** Sources, and the live runs this page started or found running, polled until they finish. */
@Injectable({ providedIn: 'root' })
export class SourcesStore {
  private readonly api = inject(ApiClient);

  readonly sources = signal<SourceStatus[]>([]);
  readonly loading = signal(false);
  readonly error = signal<string | null>(null);
  /** Live run per source name. */
  readonly runs = signal<Record<string, Run>>({});
  /** Per-source message from the last "Sync now" (e.g. already running, failed to start). */
  readonly notes = signal<Record<string, string>>({});
  private readonly polling = new Set<string>();
  /** Files dropped on this page, newest first. */
  readonly uploads = signal<UploadItem[]>([]);
  /** Stored uploads that cannot be converted (yours; admins: everyone's), with the reason. */
  readonly quarantined = signal<Upload[]>([]);
  /** Every upload `GET /uploads` lists for this person (their own, shared ones, quarantined ones). */
  readonly listed = signal<Upload[]>([]);
  readonly quarantineNote = signal<string | null>(null);

  /** Uploads each file in turn (indexed when the server answers), then refreshes the list. */
  async upload(files: readonly File[]): Promise<void> {
    for (const file of files) {
      const item: UploadItem = { name: file.name, state: 'sending' };
      this.uploads.update((u) => [item, ...u]);
      let done: UploadItem;
      try {
        const upload = await firstValueFrom(this.api.upload(file));
        done = { name: file.name, state: 'done', upload };
      } catch (e) {
        done = { name: file.name, state: 'failed', message: toApiError(e).message };
      }
      this.uploads.update((u) => u.map((x) => (x === item ? done : x)));
    }
    await this.load();
    await this.loadQuarantined();
  }

  /** The quarantined uploads this person may see (`GET /uploads`, those with a reason). */
  async loadQuarantined(): Promise<void> {
    try {
      const list = await firstValueFrom(this.api.call('listUploads'));
      this.listed.set(list);
      this.quarantined.set(list.filter((u) => !!u.quarantined));
    } catch {
      this.listed.set([]);
      this.quarantined.set([]); // uploads disabled, or not signed in: nothing to show
    }
  }

  /** Deletes an upload (`DELETE /uploads/{id}`: the file and its document in the index), then
   *  refreshes the list; the line "indexed as …" of this page's own upload goes with it. */
  async deleteUpload(id: string): Promise<void> {
    this.quarantineNote.set(null);
    try {
      await firstValueFrom(this.api.call('deleteUpload', { path: { upload_id: id } }));
      this.uploads.update((u) => u.filter((x) => x.upload?.id !== id));
    } catch (e) {
      this.quarantineNote.set(toApiError(e).message);
    }
    await this.loadQuarantined();
  }

  async load(): Promise<void> {
    this.loading.set(true);
    try {
      const list = await firstValueFrom(this.api.call('listSources'));
      this.sources.set(list);
      this.error.set(null);
      for (const s of list) {
        if (s.current_run && !isFinished(s.current_run)) this.follow(s.name, s.current_run.id);
      }
    } catch (e) {
      this.error.set(toApiError(e).message);
    } finally {
      this.loading.set(false);
    }
  }

  async sync(name: string, full = false): Promise<void> {
    this.notes.update((n) => ({ ...n, [name]: '' }));
    try {
      const started = await firstValueFrom(
        this.api.call('syncSource', { path: { name }, query: { full } }),
      );
      this.follow(name, started.run_id);
    } catch (e) {
      const err = toApiError(e);
      if (err instanceof ApiError && err.status === 409) {
        this.notes.update((n) => ({ ...n, [name]: 'A sync is already running; following it.' }));
        await this.load();
      } else {
        this.notes.update((n) => ({ ...n, [name]: err.message }));
      }
    }
  }

  /** Polls one run until it finishes, then refreshes the list (counts, last success, errors). */
  follow(name: string, runId: string): void {
    if (this.polling.has(runId)) return;
    this.polling.add(runId);
    void (async () => {
      let failures = 0;
      try {
        for (;;) {
          try {
            const run = await firstValueFrom(
              this.api.call('getRun', { path: { name, run_id: runId } }),
            );
            failures = 0;
            this.runs.update((r) => ({ ...r, [name]: run }));
            if (isFinished(run)) break;
          } catch (e) {
            failures += 1;
            if (failures >= 5) {
              this.notes.update((n) => ({
                ...n,
                [name]: `Lost track of the run: ${toApiError(e).message}`,
              }));
              break;
            }
          }
          await sleep(POLL_MS);
        }
      } finally {
        this.polling.delete(runId);
        await this.load();
      }
    })();
  }
}
