import { provideHttpClient } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';

import { relativeTime } from './sources-page';
import { SourcesStore, isFinished, progressPercent } from './sources-store';

const run = (state: string, done: number, total: number | null) => ({
  id: 'r1',
  source: 'jira',
  state,
  phase: state === 'succeeded' ? 'done' : 'indexing',
  done,
  total,
  documents_indexed: done,
  documents_unchanged: 0,
  documents_deleted: 0,
  chunks_written: 0,
  chunks_embedded: 0,
  references_written: 0,
  retries: 0,
  errors: [],
  started_at: null,
  finished_at: null,
  full: false,
});
const source = (name: string) => ({
  name,
  type: 'jira',
  status: 'idle',
  schedule: '30m',
  last_success: null,
  last_error: null,
  next_run: null,
  counts: { documents: 40 },
  current_run: null,
  last_run: null,
  config: {},
});

describe('SourcesStore', () => {
  let store: SourcesStore;
  let http: HttpTestingController;

  beforeEach(() => {
    vi.useFakeTimers();
    TestBed.configureTestingModule({
      providers: [provideHttpClient(), provideHttpClientTesting()],
    });
    store = TestBed.inject(SourcesStore);
    http = TestBed.inject(HttpTestingController);
  });
  afterEach(() => vi.useRealTimers());

  it('starts a sync and polls its run until it finishes, then reloads the list', async () => {
    const started = store.sync('jira');
    http
      .expectOne('/sources/jira/sync?full=false')
      .flush(
        { run_id: 'r1', source: 'jira', status_url: '/sources/jira/runs/r1' },
        { status: 202, statusText: 'Accepted' },
      );
    await started;

    await vi.advanceTimersByTimeAsync(0);
    http.expectOne('/sources/jira/runs/r1').flush(run('running', 10, 40));
    await vi.advanceTimersByTimeAsync(0);
    expect(store.runs()['jira'].done).toBe(10);

    await vi.advanceTimersByTimeAsync(800);
    http.expectOne('/sources/jira/runs/r1').flush(run('succeeded', 40, 40));
    await vi.advanceTimersByTimeAsync(0);
    http.expectOne('/sources').flush([source('jira')]);
    await vi.advanceTimersByTimeAsync(0);
    expect(store.runs()['jira'].state).toBe('succeeded');
    expect(store.sources()).toHaveLength(1);
    http.verify();
  });

  it('follows the running sync when the server answers 409', async () => {
    const started = store.sync('jira');
    http
      .expectOne('/sources/jira/sync?full=false')
      .flush({ detail: 'already running' }, { status: 409, statusText: 'Conflict' });
    await vi.advanceTimersByTimeAsync(0);
    http
      .expectOne('/sources')
      .flush([{ ...source('jira'), status: 'running', current_run: run('running', 1, 40) }]);
    await started;
    expect(store.notes()['jira']).toContain('already running');
    await vi.advanceTimersByTimeAsync(0);
    http.expectOne('/sources/jira/runs/r1').flush(run('succeeded', 40, 40));
    await vi.advanceTimersByTimeAsync(0);
    http.expectOne('/sources').flush([source('jira')]);
  });

  it('uploads each dropped file as multipart, then shows it indexed or refused with the reason', async () => {
    const files = [
      new File(['# Runbook'], 'runbook.md', { type: 'text/markdown' }),
      new File(['MZ'], 'tool.exe'),
    ];
    const done = store.upload(files);
    const first = http.expectOne('/uploads');
    expect(first.request.method).toBe('POST');
    expect(first.request.body).toBeInstanceOf(FormData);
    expect(((first.request.body as FormData).get('file') as File).name).toBe('runbook.md');
    expect(store.uploads()[0]).toEqual({ name: 'runbook.md', state: 'sending' });
    first.flush(
      {
        id: 'u1',
        document_id: 'upload:u1',
        filename: 'runbook.md',
        title: 'Runbook',
        bytes: 9,
        uploader: 'bob@acme.example',
        uploaded_at: '2026-11-25T22:00:00+00:00',
      },
      { status: 201, statusText: 'Created' },
    );
    await vi.advanceTimersByTimeAsync(0);
    http
      .expectOne('/uploads')
      .flush(
        { detail: 'tool.exe: .exe is not accepted' },
        { status: 415, statusText: 'Unsupported Media Type' },
      );
    await vi.advanceTimersByTimeAsync(0);
    http.expectOne('/sources').flush([source('uploads')]);
    await vi.advanceTimersByTimeAsync(0);
    const listed = http.expectOne('/uploads');
    expect(listed.request.method).toBe('GET');
    listed.flush([
      {
        id: 'u1',
        document_id: 'upload:u1',
        filename: 'runbook.md',
        title: 'Runbook',
        bytes: 9,
        uploader: 'bob@acme.example',
        uploaded_at: '2026-11-25T22:00:00+00:00',
        quarantined: null,
      },
      {
        id: 'u0',
        document_id: 'upload:u0',
        filename: 'bomb.docx',
        title: 'bomb.docx',
        bytes: 771000,
        uploader: 'bob@acme.example',
        uploaded_at: '2026-11-24T22:00:00+00:00',
        quarantined: 'too large after decompression',
      },
    ]);
    await done;
    expect(store.uploads().map((u) => [u.name, u.state])).toEqual([
      ['tool.exe', 'failed'],
      ['runbook.md', 'done'],
    ]);
    expect(store.uploads()[0].message).toContain('.exe is not accepted');
    expect(store.uploads()[1].upload?.title).toBe('Runbook');
    expect(store.quarantined().map((u) => u.id)).toEqual(['u0']);
    const removing = store.deleteUpload('u0');
    const del = http.expectOne('/uploads/u0');
    expect(del.request.method).toBe('DELETE');
    del.flush(null, { status: 204, statusText: 'No Content' });
    await vi.advanceTimersByTimeAsync(0);
    http.expectOne('/uploads').flush([]);
    await removing;
    expect(store.quarantined()).toEqual([]);
    http.verify();
  });
});

describe('progress helpers', () => {
  it('computes percent and finished state', () => {
    expect(progressPercent(run('running', 10, 40))).toBe(25);
    expect(progressPercent(run('running', 3, null))).toBeNull();
    expect(progressPercent(run('succeeded', 0, null))).toBe(100);
    expect(isFinished(run('failed', 0, 0))).toBe(true);
    expect(isFinished(run('queued', 0, 0))).toBe(false);
  });

  it('writes relative times', () => {
    const now = Date.parse('2026-01-01T12:00:00Z');
    expect(relativeTime('2026-01-01T11:57:00Z', now)).toBe('3 min ago');
    expect(relativeTime('2026-01-01T14:00:00Z', now)).toBe('in 2 h');
    expect(relativeTime('2026-01-01T12:00:10Z', now)).toBe('just now');
    expect(relativeTime(null, now)).toBe('');
  });
});
