import { NODE_HEIGHT, NODE_WIDTH, components, layoutGraph } from './graph-layout';

function overlaps(a: { x: number; y: number }, b: { x: number; y: number }): boolean {
  return Math.abs(a.x - b.x) < NODE_WIDTH && Math.abs(a.y - b.y) < NODE_HEIGHT;
}

describe('graph layout', () => {
  it('finds connected components, biggest first', () => {
    const comps = components(
      ['a', 'b', 'c', 'd', 'e'],
      [
        { source: 'a', target: 'b' },
        { source: 'c', target: 'd' },
        { source: 'd', target: 'e' },
      ],
    );
    expect(comps).toEqual([
      ['c', 'd', 'e'],
      ['a', 'b'],
    ]);
  });

  it('places every node, left to right along edges, without overlaps', () => {
    const ids = [
      'jira:PAY-1',
      'github:o/r:pull:1',
      'github:o/r:commit:abc',
      'confluence:page:1',
      'lonely',
    ];
    const edges = [
      { source: 'github:o/r:pull:1', target: 'jira:PAY-1' },
      { source: 'github:o/r:commit:abc', target: 'jira:PAY-1' },
      { source: 'jira:PAY-1', target: 'confluence:page:1' },
    ];
    const pos = layoutGraph(ids, edges);
    expect([...pos.keys()].sort()).toEqual([...ids].sort());
    expect(pos.get('github:o/r:pull:1')!.x).toBeLessThan(pos.get('jira:PAY-1')!.x);
    expect(pos.get('jira:PAY-1')!.x).toBeLessThan(pos.get('confluence:page:1')!.x);
    const all = [...pos.values()];
    for (let i = 0; i < all.length; i++)
      for (let j = i + 1; j < all.length; j++) expect(overlaps(all[i], all[j])).toBe(false);
  });

  it('lays out 500 nodes quickly and keeps the picture compact', () => {
    const ids = Array.from({ length: 500 }, (_, i) => `n${i}`);
    const edges = Array.from({ length: 700 }, (_, i) => ({
      source: `n${(i * 7) % 500}`,
      target: `n${(i * 13 + 1) % 500}`,
    }));
    const t0 = performance.now();
    const pos = layoutGraph(ids, edges);
    const ms = performance.now() - t0;
    expect(pos.size).toBe(500);
    expect(ms).toBeLessThan(3000);
    const xs = [...pos.values()].map((p) => p.x);
    const ys = [...pos.values()].map((p) => p.y);
    const w = Math.max(...xs) + NODE_WIDTH;
    const h = Math.max(...ys) + NODE_HEIGHT;
    expect(w / h).toBeLessThan(12);
  });
});
