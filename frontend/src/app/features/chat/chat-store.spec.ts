import { TestBed } from '@angular/core/testing';

import { ApiError } from '../../core/api/api-error';
import type { AskRequest } from '../../core/api/models';
import { type AskEvent, AskStream, toAskEvent } from './ask-stream';
import { ChatHistory, toTurns } from './chat-history';
import { ChatStore } from './chat-store';
import { Conversations } from './conversations';

const citation = (id: string, type = 'JIRA') => ({
  document_id: id,
  title: id,
  url: '',
  type,
  score: 1,
  snippet: '',
});

class FakeStream {
  requests: AskRequest[] = [];
  events: AskEvent[] = [];
  failWith: unknown = null;
  async *ask(request: AskRequest): AsyncGenerator<AskEvent> {
    this.requests.push(request);
    if (this.failWith) throw this.failWith;
    for (const e of this.events) yield e;
  }
}

class FakeHistory {
  turns = toTurns({ session_id: 's', messages: [] });
  cleared = 0;
  async load() {
    return this.turns;
  }
  async clear() {
    this.cleared += 1;
  }
}

class FakeConversations {
  stored = [
    {
      id: 'c1',
      title: 'Retries',
      created_at: '2026-11-24T05:00:00+00:00',
      updated_at: '2026-11-24T05:01:00+00:00',
      message_count: 2,
    },
  ];
  switched: string[] = [];
  async list() {
    return this.stored;
  }
  async switchTo(id: string) {
    this.switched.push(id);
    return id === 'new'
      ? []
      : toTurns({
          session_id: id,
          messages: [
            { role: 'user', content: 'How do we retry?', timestamp: 't', sources: [] },
            {
              role: 'assistant',
              content: 'With backoff [1].',
              timestamp: 't',
              sources: [citation('jira:PAY-7')],
            },
          ],
        });
  }
  async rename(id: string, title: string) {
    this.stored = this.stored.map((c) => (c.id === id ? { ...c, title } : c));
  }
  async remove(id: string) {
    this.stored = this.stored.filter((c) => c.id !== id);
  }
  exportUrl(id: string) {
    return `/conversations/${id}/export?format=markdown`;
  }
}

describe('ChatStore', () => {
  let store: ChatStore;
  let stream: FakeStream;
  let history: FakeHistory;
  let conversations: FakeConversations;

  beforeEach(() => {
    stream = new FakeStream();
    history = new FakeHistory();
    conversations = new FakeConversations();
    TestBed.configureTestingModule({
      providers: [
        { provide: AskStream, useValue: stream },
        { provide: ChatHistory, useValue: history },
        { provide: Conversations, useValue: conversations },
      ],
    });
    store = TestBed.inject(ChatStore);
  });

  it('builds a turn from the streamed events', async () => {
    stream.events = [
      { type: 'status', stage: 'retrieving' },
      {
        type: 'tool_call',
        call: { tool: 'RAGSearch', arguments: { query: 'q' }, result_count: 3 },
      },
      { type: 'status', stage: 'generating' },
      { type: 'token', text: 'Retry ' },
      { type: 'token', text: 'with backoff [1].' },
      { type: 'citations', sources: [citation('jira:PAY-7')] },
      {
        type: 'done',
        response: {
          answer: 'Retry with backoff [1].',
          sources: [citation('jira:PAY-7')],
          tool_calls: [{ tool: 'RAGSearch', arguments: {}, result_count: 3 }],
          mode: 'extractive',
          status: 'answered',
          note: null,
        },
      },
    ];
    await store.ask('  how do we retry?  ');
    const [turn] = store.turns();
    expect(stream.requests[0]).toEqual({ question: 'how do we retry?', sources: null });
    expect(turn.answer).toBe('Retry with backoff [1].');
    expect(turn.sources.map((s) => s.document_id)).toEqual(['jira:PAY-7']);
    expect(turn.toolCalls).toHaveLength(1);
    expect(turn.mode).toBe('extractive');
    expect(turn.streaming).toBe(false);
    expect(store.busy()).toBe(false);
  });

  it('sends the source filter only when some sources are off, and refuses with none', async () => {
    stream.events = [
      {
        type: 'done',
        response: { answer: 'a', sources: [], mode: 'extractive', status: 'answered' },
      },
    ];
    store.toggleSource('jira');
    store.toggleSource('confluence');
    for (const k of ['files', 'web', 'upload'] as const) store.toggleSource(k);
    expect(store.sourcesParam()).toEqual(['github']);
    await store.ask('q');
    expect(stream.requests[0].sources).toEqual(['github']);
    expect(store.turns()[0].filter).toEqual(['github']);

    store.toggleSource('github');
    await store.ask('q2');
    expect(stream.requests).toHaveLength(1);
  });

  it('shows server errors and unreachable servers on the turn', async () => {
    stream.events = [{ type: 'error', detail: 'the LLM timed out' }];
    await store.ask('q');
    expect(store.turns()[0].error).toBe('the LLM timed out');

    stream.failWith = new ApiError(0, 'Cannot reach the devkb server. Is it running?');
    await store.ask('q2');
    expect(store.turns()[1].error).toContain('Cannot reach');
    expect(store.turns()[1].streaming).toBe(false);
  });

  it('marks a stream that ends without "done" as stopped early', async () => {
    stream.events = [{ type: 'token', text: 'half' }];
    await store.ask('q');
    expect(store.turns()[0].error).toBe('The answer stopped early.');
  });

  it('restores history before new turns and clears it', async () => {
    history.turns = toTurns({
      session_id: 's',
      messages: [
        { role: 'user', content: 'old question', timestamp: 't' },
        {
          role: 'assistant',
          content: 'old answer [1]',
          timestamp: 't',
          sources: [citation('jira:PAY-1')],
        },
      ],
    });
    await store.loadHistory();
    expect(store.turns().map((t) => t.question)).toEqual(['old question']);
    expect(store.turns()[0].sources).toHaveLength(1);
    await store.clear();
    expect(store.turns()).toEqual([]);
    expect(history.cleared).toBe(1);
  });
  it('lists, reopens, renames and deletes past conversations', async () => {
    await store.loadConversations();
    expect(store.conversations().map((c) => c.title)).toEqual(['Retries']);
    await store.openConversation('c1');
    expect(conversations.switched).toEqual(['c1']);
    expect(store.turns().map((t) => [t.question, t.answer])).toEqual([
      ['How do we retry?', 'With backoff [1].'],
    ]);
    await store.renameConversation('c1', '  Webhook retries ');
    expect(store.conversations()[0].title).toBe('Webhook retries');
    await store.openConversation('new');
    expect(store.turns()).toEqual([]);
    await store.deleteConversation('c1');
    expect(store.conversations()).toEqual([]);
  });
});

describe('toAskEvent', () => {
  it('decodes every event of /ask/stream and skips unknown ones', () => {
    expect(toAskEvent('status', '{"stage":"generating"}')).toEqual({
      type: 'status',
      stage: 'generating',
    });
    expect(toAskEvent('token', '{"text":"hi"}')).toEqual({ type: 'token', text: 'hi' });
    expect(toAskEvent('citations', '{"sources":[]}')).toEqual({ type: 'citations', sources: [] });
    expect(toAskEvent('error', '{"detail":"boom"}')).toEqual({ type: 'error', detail: 'boom' });
    expect(toAskEvent('error', 'not json')).toEqual({ type: 'error', detail: 'not json' });
    expect(toAskEvent('ping', '{}')).toBeNull();
  });
});

describe('toTurns', () => {
  it('pairs user and assistant messages', () => {
    const turns = toTurns({
      session_id: 's',
      messages: [
        { role: 'user', content: 'q1', timestamp: 't' },
        { role: 'assistant', content: 'a1', timestamp: 't' },
        { role: 'user', content: 'q2', timestamp: 't' },
      ],
    });
    expect(turns.map((t) => [t.question, t.answer])).toEqual([
      ['q1', 'a1'],
      ['q2', ''],
    ]);
  });
});
