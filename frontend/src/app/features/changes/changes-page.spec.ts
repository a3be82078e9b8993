import type { Change } from '../../core/api/models';
import { byDay, isoDay } from './changes-page';

function change(id: string, when: string): Change {
  return {
    document: {
      id,
      type: 'JIRA',
      title: id,
      url: '',
      updated_at: when,
      metadata: {},
      source: 'jira',
    },
    version: {
      document_id: id,
      kind: 'transition',
      seq: 1,
      valid_from: when,
      valid_until: '',
      author: 'A',
      message: '',
      field: 'status',
      from_value: 'Open',
      to_value: 'Done',
      ref: '',
    },
  };
}

describe('byDay', () => {
  it('groups changes listed newest first by their UTC day', () => {
    const days = byDay([
      change('a', '2026-05-07T09:00:00+00:00'),
      change('b', '2026-05-07T01:00:00+00:00'),
      change('c', '2026-05-06T16:20:00+00:00'),
    ]);
    expect(days.map((d) => [d.day, d.items.map((c) => c.document.id)])).toEqual([
      ['2026-05-07', ['a', 'b']],
      ['2026-05-06', ['c']],
    ]);
  });

  it('writes a date as its UTC day', () => {
    expect(isoDay(new Date('2026-05-07T23:30:00Z'))).toBe('2026-05-07');
  });
});
