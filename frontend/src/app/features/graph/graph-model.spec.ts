import {
  borderToBorder,
  edgeId,
  kindFamily,
  mergeGraph,
  placeEdgeLabels,
  shortLabel,
} from './graph-model';

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

describe('edge labels', () => {
  const box = (x: number, y: number) => ({ x, y, width: 220, height: 60 });
  const line = (id: string, from: string, to: string, text: string, a: number[], b: number[]) => ({
    id,
    from,
    to,
    text,
    a: { x: a[0], y: a[1] },
    b: { x: b[0], y: b[1] },
  });

  it('gives the edges between two documents one label, never two on the same spot', () => {
    // issue 61: "mentions" and "linked issue" drawn at one midpoint read "me linked issue ue"
    const placed = placeEdgeLabels(
      [
        line('e1', 'a', 'b', 'linked issue', [0, 0], [600, 0]),
        line('e2', 'b', 'a', 'mentions the issue', [600, 0], [0, 0]),
        line('e3', 'a', 'b', 'linked issue', [0, 0], [600, 0]),
      ],
      [],
    );
    expect([...placed]).toEqual([
      ['e1', { text: 'linked issue · mentions the issue', position: 0.5 }],
    ]);
  });

  it('moves a label along its edge off another label and off the nodes, or leaves it out', () => {
    // three edges fanning out of one node cross near their middles
    const placed = placeEdgeLabels(
      [
        line('e1', 's', 'x', 'linked issue', [0, 100], [400, 100]),
        line('e2', 's', 'y', 'fixed by commit', [0, 104], [400, 96]),
        line('e3', 's', 'z', 'page links a page', [0, 108], [400, 92]),
      ],
      [box(500, 300)],
    );
    expect(placed.get('e1')?.position).toBe(0.5);
    expect(placed.get('e2')?.position).not.toBe(0.5);
    const spots = [...placed.values()].map((p) => p.position);
    expect(new Set(spots).size).toBe(spots.length);
    // a label whose every place is on a node is not drawn
    const covered = placeEdgeLabels(
      [line('e', 'p', 'q', 'links', [0, 0], [100, 0])],
      [box(-100, -30)],
    );
    expect(covered.size).toBe(0);
  });

  it('measures an edge from border to border, as a floating connection is drawn', () => {
    const { a, b } = borderToBorder(box(0, 0), box(600, 0));
    expect(a).toEqual({ x: 220, y: 30 });
    expect(b).toEqual({ x: 600, y: 30 });
  });
});
