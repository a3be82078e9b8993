import { SseParser, readSse } from './sse';

describe('SseParser', () => {
  it('parses named events with JSON data', () => {
    const p = new SseParser();
    const out = p.push('event: token\ndata: {"text":"Hi"}\n\nevent: done\ndata: {}\n\n');
    expect(out).toEqual([
      { event: 'token', data: '{"text":"Hi"}' },
      { event: 'done', data: '{}' },
    ]);
  });

  it('joins events split across chunks and CRLF line ends', () => {
    const p = new SseParser();
    expect(p.push('event: sta')).toEqual([]);
    expect(p.push('tus\r\ndata: {"stage":')).toEqual([]);
    expect(p.push('"retrieving"}\r')).toEqual([]);
    expect(p.push('\n\r\n')).toEqual([{ event: 'status', data: '{"stage":"retrieving"}' }]);
  });

  it('ignores comments, joins multi-line data and defaults the event name', () => {
    const p = new SseParser();
    expect(p.push(': keep-alive\n\ndata: a\ndata: b\n\n')).toEqual([
      { event: 'message', data: 'a\nb' },
    ]);
  });

  it('flushes a final event without a trailing blank line', () => {
    const p = new SseParser();
    expect(p.push('event: done\ndata: {}')).toEqual([]);
    expect(p.end()).toEqual([{ event: 'done', data: '{}' }]);
  });

  it('reads a ReadableStream of bytes', async () => {
    const bytes = new TextEncoder().encode('event: token\ndata: {"text":"é"}\n\n');
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes.slice(0, 20));
        c.enqueue(bytes.slice(20));
        c.close();
      },
    });
    const got = [];
    for await (const m of readSse(body)) got.push(m);
    expect(got).toEqual([{ event: 'token', data: '{"text":"é"}' }]);
  });
});
