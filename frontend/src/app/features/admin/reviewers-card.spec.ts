import { parsePeople, scopeLabel } from './reviewers-card';

describe('reviewers card', () => {
  it('names a scope as people read it', () => {
    expect(scopeLabel('project:PAY')).toBe('Jira project PAY');
    expect(scopeLabel('space:ENG')).toBe('Confluence space ENG');
  });

  it('reads e-mails separated by commas, spaces or lines, without repeats', () => {
    expect(parsePeople(' Bob@acme.example, carol@acme.example\nbob@acme.example ;; ')).toEqual([
      'bob@acme.example',
      'carol@acme.example',
    ]);
    expect(parsePeople('  ')).toEqual([]);
  });
});
