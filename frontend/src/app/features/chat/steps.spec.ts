import { describeStep } from './chat-turn';

describe('describeStep', () => {
  it('says what each tool did in plain words, without JSON', () => {
    expect(describeStep('RAGSearch', { query: 'webhook retries', top_k: 8 })).toBe(
      'Searched for “webhook retries”',
    );
    expect(describeStep('GraphQuery', { lookups: [{ key: 'PAY-12' }] })).toBe(
      'Looked up key PAY-12',
    );
    expect(
      describeStep('GraphQuery', { lookups: [{ project: 'PAY', status: ['Open', 'Closed'] }] }),
    ).toBe('Looked up project PAY, status Open, Closed');
    expect(describeStep('GraphQuery', { document_ids: ['jira:PAY-1'], reason: 'carry-over' })).toBe(
      'Went back to the documents of the previous answer',
    );
    expect(describeStep('FetchNeighbors', {})).toBe('Followed the links of the documents found');
    expect(describeStep('FilterDocs', {})).toBe('Kept the documents that match the question');
  });
});
