import { provideHttpClient } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';

import { GraphStore } from './graph-store';

const doc = (id: string, type = 'JIRA') => ({ id, type, title: id, url: '', metadata: {} });
const flush = () => new Promise((r) => setTimeout(r, 0));

describe('GraphStore', () => {
  let store: GraphStore;
  let http: HttpTestingController;

  beforeEach(() => {
    TestBed.configureTestingModule({
      providers: [provideHttpClient(), provideHttpClientTesting()],
    });
    store = TestBed.inject(GraphStore);
    http = TestBed.inject(HttpTestingController);
  });

  async function loadInitial(): Promise<void> {
    const done = store.init(null);
    http.expectOne('/stats').flush({ references_by_kind: { 'jira-issuelink': 3 } });
    http
      .expectOne((r) => r.url === '/graph')
      .flush({
        nodes: [doc('jira:A'), doc('jira:B'), doc('confluence:page:1', 'CONFLUENCE')],
        edges: [{ source: 'jira:A', target: 'jira:B', kind: 'jira-issuelink', evidence: '' }],
      });
    await done;
  }

  it('loads a page and lays out every node', async () => {
    await loadInitial();
    expect(store.visibleNodes()).toHaveLength(3);
    expect(store.positions().size).toBe(3);
    expect(store.allKinds()).toEqual(['jira-issuelink']);
    expect(store.viewRequest()?.id).toBeNull();
  });

  it('expands a node: adds neighbours and edges in the right direction, keeps the rest', async () => {
    await loadInitial();
    const done = store.expand('jira:B');
    const req = http.expectOne((r) => r.url === '/documents/jira%3AB/neighbors');
    req.flush([
      {
        document: { ...doc('jira:C'), updated_at: '', source: 'jira' },
        kind: 'jira-key-mention',
        evidence: 'C',
        direction: 'out',
      },
      {
        document: { ...doc('jira:A'), updated_at: '', source: 'jira' },
        kind: 'jira-issuelink',
        evidence: '',
        direction: 'in',
      },
    ]);
    expect(await done).toBe(1);
    expect(store.nodes().map((n) => n.id)).toEqual([
      'jira:A',
      'jira:B',
      'confluence:page:1',
      'jira:C',
    ]);
    expect(store.edges().map((e) => e.id)).toContain('jira:B|jira-key-mention|jira:C');
    expect(store.expanded().has('jira:B')).toBe(true);
    expect(store.viewRequest()?.id).toBe('jira:B');
    http.verify();
  });

  it('filters by type on the server and again locally', async () => {
    await loadInitial();
    store.toggleType('confluence');
    expect(store.visibleNodes().map((n) => n.id)).toEqual(['jira:A', 'jira:B']);
    const req = http.expectOne((r) => r.url === '/graph');
    expect(req.request.params.getAll('types')).toEqual([
      'jira',
      'github',
      'files',
      'web',
      'upload',
    ]);
    req.flush({ nodes: [doc('jira:A')], edges: [] });
    await flush();
    expect(store.visibleNodes()).toHaveLength(1);
  });

  it('filters edges by kind locally', async () => {
    await loadInitial();
    store.setKinds(new Set(['confluence-link']));
    expect(store.visibleEdges()).toHaveLength(0);
    http.expectOne((r) => r.url === '/graph').flush({ nodes: [], edges: [] });
    await flush();
  });

  it('focuses a document that is not loaded yet by fetching its neighbourhood', async () => {
    await loadInitial();
    const done = store.focus('jira:Z');
    const req = http.expectOne((r) => r.url === '/graph' && r.params.get('around') === 'jira:Z');
    req.flush({
      nodes: [doc('jira:Z'), doc('jira:A')],
      edges: [{ source: 'jira:Z', target: 'jira:A', kind: 'jira-issuelink', evidence: '' }],
    });
    await done;
    expect(store.selectedId()).toBe('jira:Z');
    expect(store.viewRequest()?.id).toBe('jira:Z');
  });

  it('reports a document that does not exist', async () => {
    await loadInitial();
    const done = store.focus('jira:NOPE');
    http.expectOne((r) => r.url === '/graph').flush({ nodes: [], edges: [] });
    await done;
    expect(store.missing()).toBe('jira:NOPE');
    expect(store.error()).toBeNull();
  });
});
