import { Injectable, computed, inject, signal } from '@angular/core';

import { toApiError } from '../../core/api/api-error';
import { type Conversation, SOURCE_KINDS, type SourceKind } from '../../core/api/models';
import { AskStream } from './ask-stream';
import { ChatHistory } from './chat-history';
import { type ChatTurn, emptyTurn, newTurnId } from './chat-model';
import { Conversations } from './conversations';

/** The conversation: turns, the source filter, streaming and history. One per app (survives navigation). */
@Injectable({ providedIn: 'root' })
export class ChatStore {
  private readonly stream = inject(AskStream);
  private readonly history = inject(ChatHistory);
  private readonly conversationsApi = inject(Conversations);
  private abort: AbortController | null = null;

  /** Past conversations (only when the server keeps them: `DEVKB_CHAT_MEMORY=store`). */
  readonly conversations = signal<Conversation[]>([]);
  readonly conversationsError = signal<string | null>(null);

  readonly turns = signal<ChatTurn[]>([]);
  readonly enabled = signal<Record<SourceKind, boolean>>({
    jira: true,
    confluence: true,
    github: true,
    files: true,
    web: true,
    upload: true,
  });
  readonly historyState = signal<'idle' | 'loading' | 'loaded' | 'failed'>('idle');
  readonly historyError = signal<string | null>(null);
  /** A question put in the composer from elsewhere ("ask about this" in the graph). */
  readonly draft = signal('');

  readonly busy = computed(() => this.turns().some((t) => t.streaming));
  readonly activeSources = computed(() => SOURCE_KINDS.filter((k) => this.enabled()[k]));
  /** What the request sends as `sources`: null when every source is on. */
  readonly sourcesParam = computed<SourceKind[] | null>(() => {
    const active = this.activeSources();
    return active.length === SOURCE_KINDS.length ? null : active;
  });

  toggleSource(kind: SourceKind): void {
    this.enabled.update((e) => ({ ...e, [kind]: !e[kind] }));
  }

  /** Turns `kinds` on and asks `question` again (an answer said the filter left its document out). */
  async includeAndAsk(kinds: SourceKind[], question: string): Promise<void> {
    this.enabled.update((e) => ({ ...e, ...Object.fromEntries(kinds.map((k) => [k, true])) }));
    await this.ask(question);
  }

  /** Restores the session's turns from the server, once per page load. */
  async loadHistory(): Promise<void> {
    if (this.historyState() !== 'idle') return;
    this.historyState.set('loading');
    try {
      const turns = await this.history.load();
      // Turns asked while the history was loading come after it.
      this.turns.update((current) => [...turns, ...current]);
      this.historyState.set('loaded');
    } catch (e) {
      this.historyError.set(toApiError(e).message);
      this.historyState.set('failed');
    }
  }

  async clear(): Promise<void> {
    this.stop();
    await this.history.clear();
    this.turns.set([]);
  }

  async loadConversations(): Promise<void> {
    try {
      this.conversations.set(await this.conversationsApi.list());
      this.conversationsError.set(null);
    } catch (e) {
      this.conversationsError.set(toApiError(e).message);
    }
  }

  /** Reopens a past conversation (`new`: starts a new one) in place of the current one. */
  async openConversation(id: string): Promise<void> {
    this.stop();
    try {
      this.turns.set(await this.conversationsApi.switchTo(id));
      this.historyError.set(null);
    } catch (e) {
      this.historyError.set(toApiError(e).message);
    }
    await this.loadConversations();
  }

  async renameConversation(id: string, title: string): Promise<void> {
    if (!title.trim()) return;
    await this.conversationsApi.rename(id, title.trim());
    await this.loadConversations();
  }

  async deleteConversation(id: string): Promise<void> {
    await this.conversationsApi.remove(id);
    await this.loadConversations();
  }

  exportUrl(id: string): string {
    return this.conversationsApi.exportUrl(id);
  }

  stop(): void {
    this.abort?.abort();
    this.abort = null;
    this.turns.update((ts) =>
      ts.map((t) => (t.streaming ? { ...t, streaming: false, stage: null } : t)),
    );
  }

  async ask(question: string): Promise<void> {
    const q = question.trim();
    if (!q || this.busy() || this.activeSources().length === 0) return;
    const id = newTurnId();
    const filter = this.sourcesParam();
    this.turns.update((ts) => [
      ...ts,
      { ...emptyTurn(id, q), stage: 'retrieving', streaming: true, filter },
    ]);
    const patch = (change: Partial<ChatTurn> | ((t: ChatTurn) => Partial<ChatTurn>)) =>
      this.turns.update((ts) =>
        ts.map((t) =>
          t.id === id ? { ...t, ...(typeof change === 'function' ? change(t) : change) } : t,
        ),
      );

    const abort = new AbortController();
    this.abort = abort;
    try {
      for await (const ev of this.stream.ask({ question: q, sources: filter }, abort.signal)) {
        switch (ev.type) {
          case 'status':
            patch({ stage: ev.stage });
            break;
          case 'tool_call':
            // With an LLM, text written before another tool call was provisional.
            patch((t) => ({ toolCalls: [...t.toolCalls, ev.call], answer: '' }));
            break;
          case 'citations':
            patch({ sources: ev.sources });
            break;
          case 'token':
            patch((t) => ({ answer: t.answer + ev.text }));
            break;
          case 'done':
            patch({
              answer: ev.response.answer,
              sources: ev.response.sources,
              toolCalls: ev.response.tool_calls ?? [],
              understood: ev.response.understood ?? null,
              mode: ev.response.mode ?? null,
              note: ev.response.note ?? null,
              status: ev.response.status ?? null,
              confidence: ev.response.confidence ?? null,
              filteredOut: (ev.response.filtered_out ?? []).map(
                (t) => t.toLowerCase() as SourceKind,
              ),
              answeredAs:
                ev.response.question && ev.response.question !== q ? ev.response.question : null,
              stage: null,
              streaming: false,
            });
            break;
          case 'error':
            patch({ error: ev.detail, stage: null, streaming: false });
            break;
        }
      }
      patch((t) =>
        t.streaming
          ? {
              streaming: false,
              stage: null,
              error: t.error ?? (abort.signal.aborted ? null : 'The answer stopped early.'),
            }
          : {},
      );
    } catch (e) {
      patch({ error: toApiError(e).message, stage: null, streaming: false });
    } finally {
      if (this.abort === abort) this.abort = null;
    }
  }
}
