/** One Server-Sent Event: its `event:` name (default "message") and its `data:` lines joined by "\n". */
export interface SseMessage {
  event: string;
  data: string;
}

/**
 * Incremental SSE parser (the WHATWG event-stream format): feed it text chunks as they arrive,
 * get back the events completed so far. Handles \n, \r\n and \r line ends, comments and
 * multi-line data; `id:` and `retry:` are ignored (a POST stream is not reconnected).
 */
export class SseParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];

  push(chunk: string): SseMessage[] {
    this.buffer += chunk;
    const out: SseMessage[] = [];
    let match: RegExpExecArray | null;
    const lineEnd = /\r\n|\r|\n/g;
    let start = 0;
    while ((match = lineEnd.exec(this.buffer)) !== null) {
      // A lone \r at the very end may be the first half of \r\n: wait for more.
      if (match[0] === '\r' && match.index === this.buffer.length - 1) break;
      this.line(this.buffer.slice(start, match.index), out);
      start = match.index + match[0].length;
    }
    this.buffer = this.buffer.slice(start);
    return out;
  }

  /** Dispatches a last event that was not followed by a blank line. */
  end(): SseMessage[] {
    const out: SseMessage[] = [];
    if (this.buffer) this.line(this.buffer, out);
    this.buffer = '';
    this.line('', out);
    return out;
  }

  private line(line: string, out: SseMessage[]): void {
    if (line === '') {
      if (this.data.length)
        out.push({ event: this.event || 'message', data: this.data.join('\n') });
      this.event = '';
      this.data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
  }
}

/** Reads a fetch body as SSE messages until the stream ends. */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
    yield* parser.push(decoder.decode());
    yield* parser.end();
  } finally {
    reader.releaseLock();
  }
}
