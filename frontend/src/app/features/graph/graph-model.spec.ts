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
