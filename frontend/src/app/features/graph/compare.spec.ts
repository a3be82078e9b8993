import type { GraphNode } from '../../core/api/models';
import { addToCompare, compareName, compareQuestion, trayHint } from './compare';

const node = (id: string, title: string): GraphNode => ({
  id,
  title,
  type: 'JIRA',
  url: '',
  metadata: {},
});

describe('compareName', () => {
  it('names issues, pull requests, commits and paths by the identifier the parser reads', () => {
    expect(compareName(node('jira:PAY-9', 'PAY-9: Define the retry policy'))).toBe('PAY-9');
    expect(
      compareName(node('github:acme/payments-service:pull:3', 'PR #3: PAY-12: Idempotency')),
    ).toBe('PR #3');
    const sha = 'c75cb74deed0687feb05a722116561e4f9ba0828';
    expect(compareName(node(`github:acme/payments-service:commit:${sha}`, 'c75cb74 PAY-9'))).toBe(
      `commit ${sha}`,
    );
    expect(
      compareName(node('github:acme/payments-service:file:src/payments/retry.py', 'retry.py')),
    ).toBe('src/payments/retry.py');
    expect(compareName(node('github:acme/payments-service:file:README.md', 'README.md'))).toBe(
      'README.md',
    );
  });

  it('quotes titles, without quotes inside, an issue number or more than the parser reads', () => {
    expect(compareName(node('confluence:page:2000004', 'PSP Retry Policy'))).toBe(
      '“PSP Retry Policy”',
    );
    expect(compareName(node('web:https://x.example/a', 'The "new" design'))).toBe(
      '“The new design”',
    );
    expect(
      compareName(node('github:acme/payments-service:issue:11', '#11: Document the budget')),
    ).toBe('“Document the budget”');
    expect(compareName(node('github:acme/payments-service:file:Makefile', 'Makefile'))).toBe(
      '“Makefile”',
    );
    const long = compareName(node('confluence:page:1', `${'word '.repeat(40)}end`));
    expect(long.length).toBeLessThanOrEqual(122);
    expect(long).toMatch(/^“word( word)*”$/);
  });
});

describe('compareQuestion', () => {
  it('asks the comparison the backend answers', () => {
    expect(
      compareQuestion(node('jira:PAY-7', 'PAY-7: Retry'), node('confluence:page:2', 'PSP Retry')),
    ).toBe('Compare PAY-7 and “PSP Retry”');
  });
});

describe('addToCompare', () => {
  it('keeps two documents at most, the newest, and never one twice', () => {
    const [a, b, c] = [node('jira:A-1', 'a'), node('jira:B-1', 'b'), node('jira:C-1', 'c')];
    expect(addToCompare([], a)).toEqual([a]);
    expect(addToCompare([a], a)).toEqual([a]);
    expect(addToCompare([a], b)).toEqual([a, b]);
    expect(addToCompare([a, b], c)).toEqual([b, c]);
  });

  it('says how many are picked', () => {
    expect(trayHint(0)).toContain('Pick two');
    expect(trayHint(1)).toContain('1 of 2');
    expect(trayHint(2)).toBe('Ready to compare:');
  });
});
