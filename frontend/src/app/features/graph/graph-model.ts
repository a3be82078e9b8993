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
