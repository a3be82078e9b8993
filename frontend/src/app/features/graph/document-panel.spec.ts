import { metadataRows, versionLine } from './document-panel';

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

describe('versionLine', () => {
  const base = {
    document_id: 'x',
    seq: 3,
    valid_from: '2026-05-07T09:00:00+00:00',
    valid_until: '',
    author: 'Priya Raman',
    message: '',
    field: '',
    from_value: '',
    to_value: '',
    ref: '',
  };
  it('reads a transition, a page version and a file diff', () => {
    expect(
      versionLine({
        ...base,
        kind: 'transition',
        field: 'status',
        from_value: 'In Review',
        to_value: 'Closed',
      }),
    ).toBe('2026-05-07 status: In Review → Closed · Priya Raman');
    expect(versionLine({ ...base, kind: 'page', message: 'tidy' })).toBe(
      '2026-05-07 version 3 · Priya Raman — tidy',
    );
    expect(versionLine({ ...base, kind: 'diff', field: 'src/a.py', to_value: 'modified' })).toBe(
      '2026-05-07 modified src/a.py · Priya Raman',
    );
  });
});
