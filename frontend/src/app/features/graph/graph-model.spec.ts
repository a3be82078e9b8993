import { edgeId, kindFamily, mergeGraph, shortLabel } from './graph-model';

const node = (id: string, type = 'JIRA') => ({ id, type, title: id, url: '', metadata: {} });

describe('graph model', () => {
  it('derives short labels from document ids', () => {
    expect(shortLabel('jira:PAY-12')).toBe('PAY-12');
    expect(shortLabel('github:acme/payments-service:pull:3')).toBe('PR #3');
    expect(shortLabel('github:acme/payments-service:commit:14eb1f5bf04badd5')).toBe(
      'commit 14eb1f5',
    );
    expect(shortLabel('github:acme/payments-service:file:src/payments/retry.py')).toBe('retry.py');
    expect(shortLabel('confluence:page:2000004')).toBe('page 2000004');
    expect(shortLabel('something-else')).toBe('something-else');
  });

  it('merges pages without duplicates and drops edges to unknown nodes', () => {
    const first = mergeGraph([], [], {
      nodes: [node('a'), node('b')],
      edges: [{ source: 'a', target: 'b', kind: 'k', evidence: '' }],
    });
    const second = mergeGraph(first.nodes, first.edges, {
      nodes: [node('b'), node('c')],
      edges: [
        { source: 'a', target: 'b', kind: 'k', evidence: '' },
        { source: 'b', target: 'c', kind: 'k', evidence: '' },
        { source: 'c', target: 'zzz', kind: 'k', evidence: '' },
      ],
    });
    expect(second.nodes.map((n) => n.id)).toEqual(['a', 'b', 'c']);
    expect(second.edges.map((e) => e.id)).toEqual([
      edgeId({ source: 'a', target: 'b', kind: 'k' }),
      'b|k|c',
    ]);
  });

  it('groups edge kinds into colour families', () => {
    expect(kindFamily('jira-key-in-commit-message')).toBe('code');
    expect(kindFamily('jira-key-in-pull-request')).toBe('code');
    expect(kindFamily('confluence-parent')).toBe('confluence');
    expect(kindFamily('jira-issuelink')).toBe('jira');
    expect(kindFamily('jira-mentions-confluence-title')).toBe('jira');
  });
});

describe('labels', () => {
  it('names a Jira issue by key and title, others by title, shortened at a word', async () => {
    const { nodeName, shorten } = await import('./graph-model');
    expect(nodeName({ id: 'jira:PAY-7', title: 'PAY-7: Retry Meridian calls on 503' }, 40)).toBe(
      'PAY-7 Retry Meridian calls on 503',
    );
    expect(nodeName({ id: 'confluence:page:1', title: 'PSP Retry Policy' })).toBe(
      'PSP Retry Policy',
    );
    expect(nodeName({ id: 'confluence:page:2', title: '' })).toBe('page 2');
    expect(shorten('Payments Architecture Overview and more words', 24)).toBe(
      'Payments Architecture…',
    );
  });

  it('places labels by priority and never two that overlap', async () => {
    const { placeLabels } = await import('./graph-model');
    const box = (id: string, x: number, y: number) => ({ id, x, y, width: 100, height: 20 });
    const placed = placeLabels(
      [box('a', 0, 0), box('b', 50, 10), box('c', 200, 0), box('d', 0, 40)],
      10,
    );
    expect([...placed]).toEqual(['a', 'c', 'd']);
    expect(placeLabels([box('a', 0, 0), box('c', 200, 0)], 1)).toEqual(new Set(['a']));
  });
});
