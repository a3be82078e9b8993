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
