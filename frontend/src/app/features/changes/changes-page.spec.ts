import type { Change, SourceStatus } from '../../core/api/models';
import { byDay, changeLine, coveredSources, isoDay, summaryLine } from './changes-page';

function change(id: string, when: string): Change {
  return {
    event: 'version',
    at: when,
    author: 'A',
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

function event(
  id: string,
  when: string,
  kind: 'created' | 'comment',
  author = 'Hannah Weber',
): Change {
  return { ...change(id, when), event: kind, author, version: null };
}

describe('creation and comments', () => {
  it('writes each change as a line and counts them by kind', () => {
    const all = [
      event('jira:WEB-7', '2026-10-06T12:00:00+00:00', 'comment'),
      event('jira:WEB-8', '2026-10-03T14:00:00+00:00', 'created', 'Tomás Silva'),
      event('jira:WEB-7', '2026-09-10T10:00:00+00:00', 'created'),
      change('jira:WEB-7', '2026-09-01T10:00:00+00:00'),
    ];
    expect(all.map(changeLine)).toEqual([
      '2026-10-06 comment · Hannah Weber',
      '2026-10-03 created · Tomás Silva',
      '2026-09-10 created · Hannah Weber',
      '2026-09-01 status: Open → Done · A',
    ]);
    expect(summaryLine(all)).toBe('4 changes to 2 documents: 2 created, 1 comment, 1 edit or move');
    expect(summaryLine([])).toBe('0 changes to 0 documents');
    expect(byDay(all).map((d) => d.day)).toEqual([
      '2026-10-06',
      '2026-10-03',
      '2026-09-10',
      '2026-09-01',
    ]);
  });

  it('names the sources the view covers when a range is empty', () => {
    const source = (name: string, type: string) => ({ name, type }) as SourceStatus;
    expect(
      coveredSources([
        source('jira', 'jira'),
        source('wiki', 'confluence'),
        source('docs', 'files'),
      ]),
    ).toBe('jira (issues created, commented on and moved), wiki (pages edited and commented on)');
  });
});
