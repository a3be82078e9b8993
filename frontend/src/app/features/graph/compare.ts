import type { GraphNode } from '../../core/api/models';

/** The longest title the question parser reads between quotes (`agent/identifiers.py` QUOTED). */
const MAX_QUOTED = 120;

/**
 * How a comparison question names a document so the backend finds exactly it: the identifier the
 * question parser reads (issue key, "PR #3", "commit <sha>", a repository path), else the title in
 * quotes. Titles of issues, pull requests and commits are never quoted: they often hold another
 * issue key ("PR #3: PAY-12: …"), which would name a third document.
 */
export function compareName(node: Pick<GraphNode, 'id' | 'title'>): string {
  const parts = node.id.split(':');
  const [source] = parts;
  if (source === 'jira' && parts.length >= 2) return parts.slice(1).join(':');
  if (source === 'github' && parts.length >= 4) {
    const kind = parts[2];
    const rest = parts.slice(3).join(':');
    if (kind === 'pull') return `PR #${rest}`;
    if (kind === 'commit') return `commit ${rest}`;
    // a path with a folder, or a file name the parser knows (README.md)
    if (
      kind === 'file' &&
      (rest.includes('/') || /\.(md|markdown|json|txt|html|ya?ml|py)$/.test(rest))
    )
      return rest;
    if (kind === 'issue') return quoted(node.title.replace(/^#\d+:\s*/, ''));
  }
  return quoted(node.title);
}

function quoted(title: string): string {
  let text = title.replace(/["“”]/g, '').replace(/\s+/g, ' ').trim();
  if (text.length > MAX_QUOTED) {
    // a prefix of the title still finds it (the lookup is "title contains"); cut at a word
    const cut = text.slice(0, MAX_QUOTED);
    text = cut.slice(0, Math.max(cut.lastIndexOf(' '), 3)).trim();
  }
  return `“${text}”`;
}

/** The question the chat asks for "Compare": the backend's comparison kind answers it. */
export function compareQuestion(
  a: Pick<GraphNode, 'id' | 'title'>,
  b: Pick<GraphNode, 'id' | 'title'>,
): string {
  return `Compare ${compareName(a)} and ${compareName(b)}`;
}

/** Adds a search result to the documents picked for a comparison: at most two, the newest kept. */
export function addToCompare(picked: readonly GraphNode[], node: GraphNode): GraphNode[] {
  if (picked.some((p) => p.id === node.id)) return [...picked];
  return [...picked, node].slice(-2);
}

/** What the compare tray says, by how many documents are picked. */
export function trayHint(picked: number): string {
  if (picked === 0) return 'Pick two documents in the search to compare.';
  if (picked === 1) return '1 of 2 picked. Pick one more in the search:';
  return 'Ready to compare:';
}
