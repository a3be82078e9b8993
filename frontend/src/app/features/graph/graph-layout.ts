import dagre from '@dagrejs/dagre';

export const NODE_WIDTH = 220;
export const NODE_HEIGHT = 60;
const GAP = 48;
/** Width : height the packed picture aims for (a wide screen minus the side panel). */
const ASPECT = 2;

export interface Point {
  x: number;
  y: number;
}

interface Box {
  ids: string[];
  pos: Map<string, Point>;
  width: number;
  height: number;
}

/** Connected components (edges as undirected), biggest first; ties keep input order. */
export function components(
  ids: readonly string[],
  edges: readonly { source: string; target: string }[],
): string[][] {
  const parent = new Map(ids.map((id) => [id, id]));
  const find = (x: string): string => {
    let r = x;
    while (parent.get(r) !== r) r = parent.get(r)!;
    while (parent.get(x) !== r) {
      const next = parent.get(x)!;
      parent.set(x, r);
      x = next;
    }
    return r;
  };
  for (const e of edges) {
    if (!parent.has(e.source) || !parent.has(e.target)) continue;
    const a = find(e.source);
    const b = find(e.target);
    if (a !== b) parent.set(a, b);
  }
  const groups = new Map<string, string[]>();
  for (const id of ids) {
    const r = find(id);
    const g = groups.get(r);
    if (g) g.push(id);
    else groups.set(r, [id]);
  }
  return [...groups.values()].sort((a, b) => b.length - a.length);
}

function layoutComponent(
  ids: string[],
  edges: readonly { source: string; target: string }[],
  rankdir: 'LR' | 'TB',
): Box {
  const g = new dagre.graphlib.Graph({ multigraph: false });
  g.setGraph({ rankdir, nodesep: 22, ranksep: 90, marginx: 0, marginy: 0 });
  g.setDefaultEdgeLabel(() => ({}));
  const inside = new Set(ids);
  for (const id of ids) g.setNode(id, { width: NODE_WIDTH, height: NODE_HEIGHT });
  for (const e of edges) {
    if (e.source !== e.target && inside.has(e.source) && inside.has(e.target))
      g.setEdge(e.source, e.target);
  }
  dagre.layout(g);
  const pos = new Map<string, Point>();
  let width = 0;
  let height = 0;
  for (const id of ids) {
    const n = g.node(id);
    const p = { x: Math.round(n.x - NODE_WIDTH / 2), y: Math.round(n.y - NODE_HEIGHT / 2) };
    pos.set(id, p);
    width = Math.max(width, p.x + NODE_WIDTH);
    height = Math.max(height, p.y + NODE_HEIGHT);
  }
  return { ids, pos, width, height };
}

function gridBox(ids: string[], columns: number): Box {
  const pos = new Map<string, Point>();
  ids.forEach((id, i) => {
    pos.set(id, {
      x: (i % columns) * (NODE_WIDTH + 24),
      y: Math.floor(i / columns) * (NODE_HEIGHT + 20),
    });
  });
  const rows = Math.ceil(ids.length / columns);
  return {
    ids,
    pos,
    width: Math.min(ids.length, columns) * (NODE_WIDTH + 24) - 24,
    height: rows * (NODE_HEIGHT + 20) - 20,
  };
}

/**
 * Positions (top-left corners) for every node: each connected component is laid out left to
 * right by dagre, documents without references go into a grid,
 * and the blocks are packed in rows so that the picture keeps roughly the screen's proportions
 * (`aspect`, width : height; 2:1 by default) rather than one endless strip.
 */
export function layoutGraph(
  ids: readonly string[],
  edges: readonly { source: string; target: string }[],
  aspect = ASPECT,
): Map<string, Point> {
  const comps = components(ids, edges);
  const connected = comps.filter((c) => c.length > 1);
  const singles = comps.filter((c) => c.length === 1).map((c) => c[0]);
  const rankdir = 'LR';
  const boxes = connected
    .map((c) => layoutComponent(c, edges, rankdir))
    .sort((a, b) => b.height - a.height);
  const area =
    boxes.reduce((s, b) => s + (b.width + GAP) * (b.height + GAP), 0) +
    singles.length * (NODE_WIDTH + 24) * (NODE_HEIGHT + 20);
  const rowWidth = Math.max(
    Math.sqrt(area * aspect) * 1.3,
    ...boxes.map((b) => b.width),
    NODE_WIDTH * 3,
  );
  if (singles.length)
    boxes.push(gridBox(singles, Math.max(1, Math.floor((rowWidth + 24) / (NODE_WIDTH + 24)))));

  const out = new Map<string, Point>();
  let x = 0;
  let y = 0;
  let rowHeight = 0;
  for (const b of boxes) {
    if (x > 0 && x + b.width > rowWidth) {
      x = 0;
      y += rowHeight + GAP * 2;
      rowHeight = 0;
    }
    for (const [id, p] of b.pos) out.set(id, { x: p.x + x, y: p.y + y });
    x += b.width + GAP * 2;
    rowHeight = Math.max(rowHeight, b.height);
  }
  return out;
}

export interface View {
  scale: number;
  /** The canvas point (canvas units) drawn at the centre of the visible canvas. */
  centre: Point;
}

/**
 * Where to look when one document is selected or expanded: the document and its neighbours,
 * fitted into the visible canvas (`width` × `height` screen pixels less `padding` per side,
 * which is what the details panel leaves), never zoomed in past 1 nor out below `minScale`.
 * When the neighbourhood does not fit at `minScale`, the view still holds the document itself and
 * as much of its neighbourhood as fits around it, rather than the document alone at the centre.
 */
export function neighbourhoodView(
  id: string,
  positions: ReadonlyMap<string, Point>,
  edges: readonly { source: string; target: string }[],
  width: number,
  height: number,
  padding: Point,
  minScale: number,
): View | null {
  const own = positions.get(id);
  if (!own) return null;
  const members = [own];
  for (const e of edges) {
    const other = e.source === id ? e.target : e.target === id ? e.source : null;
    const p = other === null || other === id ? undefined : positions.get(other);
    if (p) members.push(p);
  }
  const x0 = Math.min(...members.map((p) => p.x));
  const y0 = Math.min(...members.map((p) => p.y));
  const x1 = Math.max(...members.map((p) => p.x + NODE_WIDTH));
  const y1 = Math.max(...members.map((p) => p.y + NODE_HEIGHT));
  const roomX = Math.max(1, width - 2 * padding.x);
  const roomY = Math.max(1, height - 2 * padding.y);
  const scale = Math.max(minScale, Math.min(1, roomX / (x1 - x0), roomY / (y1 - y0)));
  // the neighbourhood's centre, moved towards the document until the document is fully in view
  const half = { x: roomX / 2 / scale, y: roomY / 2 / scale };
  const clamp = (c: number, lo: number, hi: number, span: number) => {
    // keep [lo, hi] (the document) inside [c - span, c + span] when it can be
    if (hi - lo >= 2 * span) return (lo + hi) / 2;
    return Math.min(Math.max(c, hi - span), lo + span);
  };
  const centre = {
    x: clamp((x0 + x1) / 2, own.x, own.x + NODE_WIDTH, half.x),
    y: clamp((y0 + y1) / 2, own.y, own.y + NODE_HEIGHT, half.y),
  };
  return { scale, centre };
}
