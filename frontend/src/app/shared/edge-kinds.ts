/** Human words for the reference kinds the backend emits (indexing/references), not identifiers. */
const LABELS: Record<string, string> = {
  'jira-issuelink': 'linked issue',
  'jira-key-mention': 'mentions the issue',
  'jira-key-in-commit-message': 'fixed by commit',
  'jira-key-in-pull-request': 'fixed by pull request',
  'jira-key-in-doc': 'document mentions the issue',
  'jira-key-in-confluence-page': 'page mentions the issue',
  'jira-key-in-github-issue': 'GitHub issue mentions the issue',
  'jira-keys-in-documents': 'mentions the issue',
  'jira-mentions-commit-url': 'issue links a commit',
  'jira-mentions-pull-request-url': 'issue links a pull request',
  'jira-mentions-doc-url': 'issue links a document',
  'jira-mentions-confluence-url': 'issue links a page',
  'jira-mentions-confluence-title': 'issue names a page',
  'confluence-link': 'page links a page',
  'confluence-parent': 'sub-page of',
  'confluence-mentions': 'page mentions',
  'github-links': 'links',
  'gh-issue': 'GitHub issue',
  'jira-subtask': 'sub-task of',
  'jira-epic': 'in epic',
};

export function edgeLabel(kind: string): string {
  return LABELS[kind] ?? kind.replace(/[-_]+/g, ' ');
}
