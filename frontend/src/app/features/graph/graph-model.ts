import type { GraphEdge, GraphNode } from '../../core/api/models';

/** An edge with a stable id (several kinds may join the same two documents). */
export interface Edge extends GraphEdge {
  id: string;
}

export function edgeId(e: Pick<GraphEdge, 'source' | 'target' | 'kind'>): string {
  return `${e.source}|${e.kind}|${e.target}`;
}

/** Merges a page of nodes and edges into the current ones (existing entries win: no flicker). */
export function mergeGraph(
  nodes: readonly GraphNode[],
  edges: readonly Edge[],
  more: { nodes: readonly GraphNode[]; edges: readonly GraphEdge[] },
): { nodes: GraphNode[]; edges: Edge[] } {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  for (const n of more.nodes) if (!byId.has(n.id)) byId.set(n.id, n);
  const edgeMap = new Map(edges.map((e) => [e.id, e]));
  for (const e of more.edges) {
    const id = edgeId(e);
    if (!edgeMap.has(id) && byId.has(e.source) && byId.has(e.target)) edgeMap.set(id, { ...e, id });
  }
  return { nodes: [...byId.values()], edges: [...edgeMap.values()] };
}

/**
 * The short handle shown on a node: the issue key, "PR #3", "commit 14eb1f5", a file name or
 * "page 2000004" — from the document id (jira:PAY-12, github:owner/repo:pull:3, confluence:page:1).
 */
export function shortLabel(id: string): string {
  const parts = id.split(':');
  const [source] = parts;
  if (source === 'jira' && parts.length >= 2) return parts.slice(1).join(':');
  if (source === 'github' && parts.length >= 4) {
    const kind = parts[2];
    const rest = parts.slice(3).join(':');
    if (kind === 'pull') return `PR #${rest}`;
    if (kind === 'issue') return `issue #${rest}`;
    if (kind === 'commit') return `commit ${rest.slice(0, 7)}`;
    if (kind === 'file') return rest.split('/').pop() || rest;
    return `${kind} ${rest}`;
  }
  if (source === 'confluence' && parts.length >= 3)
    return `${parts[1]} ${parts.slice(2).join(':')}`;
  if (source === 'files' && parts.length >= 3)
    return parts.slice(2).join(':').split('/').pop() || id;
  if (source === 'web' && parts.length >= 3) {
    const path = parts
      .slice(2)
      .join(':')
      .replace(/[?#].*$/, '')
      .replace(/\/$/, '');
    return path.split('/').pop() || path;
  }
  if (source === 'upload') return 'upload';
  return id;
}

/** The family of an edge kind, for its colour: jira-*, confluence-*, or code (commits, PRs, files). */
export function kindFamily(kind: string): 'jira' | 'confluence' | 'code' | 'other' {
  if (/commit|pull-request|github|file/.test(kind)) return 'code';
  if (kind.startsWith('confluence')) return 'confluence';
  if (kind.startsWith('jira')) return 'jira';
  return 'other';
}

/** `text` cut at a word boundary to at most `max` characters, with "…" when cut. */
export function shorten(text: string, max: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t.length <= max) return t;
  const cut = t.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,.:;–—-]+$/, '')}…`;
}

/**
 * The name a node is shown by: its human title. Jira titles keep their key in front ("PAY-7:
 * Retry Meridian calls…" — the key is how people name issues); a title that is only an id falls
 * back to the short handle.
 */
export function nodeName(node: { id: string; title: string }, max = 40): string {
  const title = (node.title || '').trim();
  if (!title) return shortLabel(node.id);
  if (node.id.startsWith('jira:')) {
    const key = node.id.slice(5);
    const rest = title.startsWith(key) ? title.slice(key.length).replace(/^[\s:–—-]+/, '') : title;
    return rest ? `${key} ${shorten(rest, Math.max(12, max - key.length - 1))}` : key;
  }
  return shorten(title, max);
}

export interface LabelBox {
  id: string;
  x: number;
  y: number;
  width: number;
  height: number;
  /** The node's own box: labelled nodes are drawn above the others, so their boxes must not
   *  cover another label either. */
  node?: { x: number; y: number; width: number; height: number };
}

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}
function apart(a: Rect, b: Rect, gap: number): boolean {
  return (
    a.x + a.width + gap <= b.x ||
    b.x + b.width + gap <= a.x ||
    a.y + a.height + gap <= b.y ||
    b.y + b.height + gap <= a.y
  );
}

/**
 * Which nodes get a label, in priority order, so that no two labels overlap: each candidate's
 * label box (canvas units) is taken when it overlaps none already taken. At most `max`.
 */
export function placeLabels(candidates: readonly LabelBox[], max: number, gap = 4): Set<string> {
  const taken: LabelBox[] = [];
  for (const c of candidates) {
    if (taken.length >= max) break;
    const clear = taken.every(
      (t) =>
        apart(c, t, gap) && (!t.node || apart(c, t.node, 0)) && (!c.node || apart(c.node, t, 0)),
    );
    if (clear) taken.push(c);
  }
  return new Set(taken.map((t) => t.id));
}

/** An edge as the label placer sees it: its id, kind words and its ends' centres (canvas units). */
export interface EdgeLine {
  id: string;
  from: string;
  to: string;
  text: string;
  a: { x: number; y: number };
  b: { x: number; y: number };
}

/** Where along an edge a label may sit, best first (the middle, then either side of it). */
const SLOTS = [0.5, 0.35, 0.65, 0.25, 0.75];
const LABEL_CHAR = 6.2; // 10 px monospace, per character (measured: 6.0)
const LABEL_PAD = 20; // padding and border (measured: 13 at 1:1, more when zoomed out)
const LABEL_HEIGHT = 18; // measured: 17

/**
 * Edge labels that never overlap one another nor a node: the edges between the same two
 * documents share one label ("linked issue · mentions the issue", not two drawn on the same
 * spot), and each label, in the given priority order, takes the first place along its edge that
 * is clear; one that finds none is not drawn (its edge keeps its evidence as a tooltip).
 * Returns edge id → the label's text and position along the edge (0–1).
 */
export function placeEdgeLabels(
  edges: readonly EdgeLine[],
  nodes: readonly Rect[],
  max = 200,
): Map<string, { text: string; position: number }> {
  const pairs = new Map<string, EdgeLine & { texts: string[] }>();
  for (const e of edges) {
    const key = [e.from, e.to].sort().join('\u0001');
    const seen = pairs.get(key);
    if (!seen) pairs.set(key, { ...e, texts: [e.text] });
    else if (!seen.texts.includes(e.text)) seen.texts.push(e.text);
  }
  const taken: Rect[] = [];
  const out = new Map<string, { text: string; position: number }>();
  for (const e of pairs.values()) {
    if (out.size >= max) break;
    const text = e.texts.join(' · ');
    const width = text.length * LABEL_CHAR + LABEL_PAD;
    for (const t of SLOTS) {
      const cx = e.a.x + (e.b.x - e.a.x) * t;
      const cy = e.a.y + (e.b.y - e.a.y) * t;
      const box = { x: cx - width / 2, y: cy - LABEL_HEIGHT / 2, width, height: LABEL_HEIGHT };
      if (taken.every((r) => apart(box, r, 6)) && nodes.every((n) => apart(box, n, 0))) {
        taken.push(box);
        out.set(e.id, { text, position: t });
        break;
      }
    }
  }
  return out;
}

/**
 * The part of the line between two boxes' centres that lies outside both boxes (a floating
 * straight connection is drawn border to border, and its labels' positions are along that part).
 */
export function borderToBorder(
  a: Rect,
  b: Rect,
): { a: { x: number; y: number }; b: { x: number; y: number } } {
  const ca = { x: a.x + a.width / 2, y: a.y + a.height / 2 };
  const cb = { x: b.x + b.width / 2, y: b.y + b.height / 2 };
  const dx = cb.x - ca.x;
  const dy = cb.y - ca.y;
  // how far along the centre line (0–1) a box's border is met, leaving from its centre
  const exit = (r: Rect) => {
    const tx = dx === 0 ? Infinity : r.width / 2 / Math.abs(dx);
    const ty = dy === 0 ? Infinity : r.height / 2 / Math.abs(dy);
    return Math.min(tx, ty, 0.5);
  };
  const s = exit(a);
  const e = 1 - exit(b);
  return {
    a: { x: ca.x + dx * s, y: ca.y + dy * s },
    b: { x: ca.x + dx * e, y: ca.y + dy * e },
  };
}
