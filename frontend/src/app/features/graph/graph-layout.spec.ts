import {
  NODE_HEIGHT,
  NODE_WIDTH,
  components,
  layoutGraph,
  neighbourhoodView,
} from './graph-layout';

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

  it('lays out 500 nodes and keeps the picture compact', () => {
    const ids = Array.from({ length: 500 }, (_, i) => `n${i}`);
    const edges = Array.from({ length: 700 }, (_, i) => ({
      source: `n${(i * 7) % 500}`,
      target: `n${(i * 13 + 1) % 500}`,
    }));
    const pos = layoutGraph(ids, edges);
    expect(pos.size).toBe(500);
    const xs = [...pos.values()].map((p) => p.x);
    const ys = [...pos.values()].map((p) => p.y);
    const w = Math.max(...xs) + NODE_WIDTH;
    const h = Math.max(...ys) + NODE_HEIGHT;
    expect(w / h).toBeLessThan(12);
  });

  describe('the view around one document', () => {
    const pad = { x: 40, y: 56 };
    const edges = (id: string, others: string[]) => others.map((o) => ({ source: id, target: o }));

    it('fits a small neighbourhood whole, never zooming in past 1', () => {
      const pos = new Map([
        ['a', { x: 0, y: 0 }],
        ['b', { x: 300, y: 0 }],
        ['far', { x: 5000, y: 5000 }],
      ]);
      const view = neighbourhoodView('a', pos, edges('a', ['b']), 1000, 700, pad, 0.6)!;
      expect(view.scale).toBe(1);
      expect(view.centre).toEqual({ x: (300 + NODE_WIDTH) / 2, y: NODE_HEIGHT / 2 });
    });

    it('zooms out to hold the neighbours, down to the readable limit', () => {
      const pos = new Map([
        ['a', { x: 0, y: 0 }],
        ['b', { x: 1200, y: 0 }],
      ]);
      const view = neighbourhoodView('a', pos, edges('a', ['b']), 1000, 700, pad, 0.6)!;
      const width = 1200 + NODE_WIDTH;
      expect(view.scale).toBeCloseTo((1000 - 80) / width, 5);
      expect(view.scale).toBeLessThan(1);
    });

    it('keeps the document in view when its neighbours cannot all fit', () => {
      const pos = new Map([
        ['a', { x: 0, y: 0 }],
        ['b', { x: 4000, y: 0 }],
        ['c', { x: 4000, y: 3000 }],
      ]);
      const view = neighbourhoodView('a', pos, edges('a', ['b', 'c']), 1000, 700, pad, 0.6)!;
      expect(view.scale).toBe(0.6);
      const halfX = (1000 - 80) / 2 / view.scale;
      const halfY = (700 - 112) / 2 / view.scale;
      // the whole node lies inside the visible rectangle around the centre
      expect(view.centre.x - halfX).toBeLessThanOrEqual(0);
      expect(view.centre.x + halfX).toBeGreaterThanOrEqual(NODE_WIDTH);
      expect(view.centre.y - halfY).toBeLessThanOrEqual(0);
      expect(view.centre.y + halfY).toBeGreaterThanOrEqual(NODE_HEIGHT);
      // and the view leans towards the neighbours rather than centring the document alone
      expect(view.centre.x).toBeGreaterThan(NODE_WIDTH / 2);
    });

    it('has no view for a document that is not drawn', () => {
      expect(neighbourhoodView('x', new Map(), [], 1000, 700, pad, 0.6)).toBeNull();
    });
  });
});
