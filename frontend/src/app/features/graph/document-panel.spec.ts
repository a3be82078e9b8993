import { metadataRows } from './document-panel';

describe('metadataRows', () => {
  it('keeps simple values, joins simple lists and skips nested or empty ones', () => {
    const rows = metadataRows({
      status: 'Closed',
      labels: ['incident', 'customer-impact'],
      comment_count: 4,
      empty: '',
      nested: { a: 1 },
      objects: [{ a: 1 }],
      nothing: null,
    });
    expect(rows).toEqual([
      { key: 'status', value: 'Closed' },
      { key: 'labels', value: 'incident, customer-impact' },
      { key: 'comment count', value: '4' },
    ]);
  });

  it('formats ISO timestamps and shortens long text', () => {
    const [created, long] = metadataRows({
      created: '2026-04-14T10:52:00+00:00',
      body: 'x'.repeat(300),
    });
    expect(created.value).not.toContain('T10:52');
    expect(long.value.length).toBe(201);
  });
});
