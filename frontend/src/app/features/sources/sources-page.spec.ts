import { provideHttpClient } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { provideRouter } from '@angular/router';

import type { Upload } from '../../core/api/models';
import { SourcesPage, fileSize, indexedLine, syncCounts, versionsLabel } from './sources-page';

describe('SourcesPage', () => {
  it('lists sources with status, counts, last error and a progress bar for a running sync', async () => {
    TestBed.configureTestingModule({
      imports: [SourcesPage],
      providers: [provideHttpClient(), provideHttpClientTesting()],
    });
    const fixture = TestBed.createComponent(SourcesPage);
    const http = TestBed.inject(HttpTestingController);
    const base = {
      schedule: '30m',
      last_success: null,
      next_run: null,
      last_run: null,
      config: {},
    };
    http.expectOne('/sources').flush([
      {
        ...base,
        name: 'jira',
        type: 'jira',
        status: 'failed',
        last_error: 'HTTP 503 from Jira',
        counts: { documents: 40 },
        current_run: null,
      },
      {
        ...base,
        name: 'wiki',
        type: 'confluence',
        status: 'running',
        last_error: null,
        counts: {},
        current_run: {
          id: 'r9',
          source: 'wiki',
          state: 'running',
          phase: 'indexing',
          done: 5,
          total: 20,
          documents_indexed: 5,
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
        },
      },
    ]);
    await fixture.whenStable();
    const el: HTMLElement = fixture.nativeElement;
    const cards = el.querySelectorAll('li.card');
    expect(cards).toHaveLength(2);
    expect(cards[0].querySelector('[data-testid=source-status]')?.textContent?.trim()).toBe(
      'Failed',
    );
    expect(cards[0].textContent).toContain('HTTP 503 from Jira');
    expect(cards[0].querySelector('.counts')?.textContent).toContain('40 documents');
    expect(cards[1].querySelector('[data-testid=source-status]')?.textContent?.trim()).toBe(
      'Syncing',
    );
    expect(cards[1].querySelector('[role=progressbar]')?.getAttribute('aria-valuenow')).toBe('25');
    expect(cards[1].querySelector<HTMLButtonElement>('button.primary')?.disabled).toBe(true);
    http.expectOne('/sources/wiki/runs/r9');
    fixture.destroy();
  });
});

const upload = (over: Partial<Upload> = {}): Upload => ({
  id: 'a1',
  document_id: 'upload:a1',
  filename: 'runbook.md',
  title: 'Sandbox key runbook',
  bytes: 120,
  uploader: 'operator',
  uploaded_at: '2026-12-01T10:00:00+00:00',
  version: 1,
  versions: 1,
  quarantined: null,
  ...over,
});

describe('Your uploads', () => {
  it('shows one row per document, with its versions linked to the history in the graph', async () => {
    TestBed.configureTestingModule({
      imports: [SourcesPage],
      providers: [provideHttpClient(), provideHttpClientTesting(), provideRouter([])],
    });
    const fixture = TestBed.createComponent(SourcesPage);
    const http = TestBed.inject(HttpTestingController);
    http.expectOne('/sources').flush([]);
    http
      .expectOne('/uploads')
      .flush([
        upload({ version: 3, versions: 3, bytes: 2048 }),
        upload({ id: 'b2', document_id: 'upload:b2', filename: 'notes.md', title: 'Notes' }),
      ]);
    await fixture.whenStable();
    const rows = (fixture.nativeElement as HTMLElement).querySelectorAll(
      '[data-testid=your-uploads] li',
    );
    expect(rows).toHaveLength(2);
    const link = rows[0].querySelector<HTMLAnchorElement>('[data-testid=upload-versions]');
    expect(link?.textContent?.trim()).toBe('3 versions');
    expect(link?.getAttribute('href')).toBe('/explore?focus=upload:a1');
    expect(rows[1].querySelector('[data-testid=upload-versions]')).toBeNull();
    fixture.destroy();
  });

  it('says whether a file became a new document or the next version of one', () => {
    expect(indexedLine(upload())).toBe('indexed as “Sandbox key runbook” (private to you)');
    expect(indexedLine(upload({ version: 2, versions: 2 }))).toBe(
      'indexed as “Sandbox key runbook”, version 2 of your document (private to you)',
    );
    expect(versionsLabel(upload({ version: 2, versions: 2 }))).toBe('2 versions');
  });
});

describe('fileSize', () => {
  it('says bytes, KB or MB', () => {
    expect(fileSize(75)).toBe('75 bytes');
    expect(fileSize(12 * 1024)).toBe('12 KB');
    expect(fileSize(1.4 * 1024 * 1024)).toBe('1.4 MB');
  });
});

describe('syncCounts', () => {
  it('adds up: documents = new or updated + unchanged; no chunks', () => {
    const c = syncCounts({
      documents: 18,
      indexed: 0,
      unchanged: 1,
      deleted: 0,
      chunks_embedded: 0,
      skipped: 0,
    });
    expect(c.map((x) => `${x.value} ${x.key}`)).toEqual([
      '18 documents',
      '0 new or updated',
      '18 unchanged',
    ]);
    expect(
      syncCounts({ documents: 5, indexed: 2, deleted: 1, skipped: 3 }).map(
        (x) => `${x.value} ${x.key}`,
      ),
    ).toEqual([
      '5 documents',
      '2 new or updated',
      '3 unchanged',
      '1 deleted',
      '3 could not be read',
    ]);
  });
});
