import {
  ChangeDetectionStrategy,
  Component,
  ElementRef,
  afterRenderEffect,
  computed,
  inject,
  signal,
  viewChild,
} from '@angular/core';
import { FormsModule } from '@angular/forms';

import { SOURCE_KINDS, type SourceKind } from '../../core/api/models';
import { AuthStore } from '../../core/auth/auth-store';
import { ServerStatus } from '../../core/server-status';
import { docTypeStyle } from '../../shared/doc-type';
import { ChatStore } from './chat-store';
import { ChatTurnView } from './chat-turn';

/** The chat panel: source filter, conversation, composer. */
@Component({
  selector: 'app-chat-page',
  imports: [FormsModule, ChatTurnView],
  changeDetection: ChangeDetectionStrategy.OnPush,
  templateUrl: './chat-page.html',
  styleUrl: './chat-page.scss',
})
export class ChatPage {
  /** The composer's placeholder: the keys to send only where there is a keyboard's room (a phone's
   *  two rows would cut it). */
  protected readonly placeholder =
    typeof matchMedia === 'function' && matchMedia('(max-width: 640px)').matches
      ? 'Ask about an issue, a design, a commit…'
      : 'Ask about an issue, a design, a commit… (Enter to send, Shift+Enter for a new line)';

  protected readonly store = inject(ChatStore);
  private readonly status = inject(ServerStatus);
  /** Setup hints (how to connect a language model) are for admins only. */
  protected readonly auth = inject(AuthStore);
  /** Whether the server keeps conversations (`DEVKB_CHAT_MEMORY=store`): then they can be listed and reopened. */
  /** The server's limit (DEVKB_MAX_QUESTION_CHARS, default 2000): shown, never cut silently. */
  protected readonly maxChars = 2000;
  protected readonly tooLong = computed(() => this.question().length > this.maxChars);
  protected readonly extractive = computed(() => {
    const h = this.status.health();
    return h !== null && !(h.llm.ok && !/extractive|^none/i.test(h.llm.detail)); // as the header's pill
  });
  protected readonly persistent = computed(
    () => this.status.health()?.replica?.chat_memory === 'store',
  );
  protected readonly kinds = SOURCE_KINDS;
  protected readonly question = signal(this.store.draft());
  protected readonly announcement = computed(() => {
    const last = this.store.turns().at(-1);
    if (!last) return '';
    if (last.streaming) return last.stage === 'generating' ? 'Writing the answer' : 'Searching';
    if (last.error) return `Error: ${last.error}`;
    return `Answer ready with ${last.sources.length} ${last.sources.length === 1 ? 'source' : 'sources'}`;
  });
  private readonly log = viewChild.required<ElementRef<HTMLElement>>('log');
  private readonly input = viewChild.required<ElementRef<HTMLTextAreaElement>>('input');

  constructor() {
    this.store.draft.set('');
    void this.store.loadHistory();
    // A new question moves to the top of the log; the answer streams in below it.
    let lastCount = 0;
    afterRenderEffect(() => {
      const turns = this.store.turns();
      const el = this.log().nativeElement;
      const last = turns.at(-1);
      void last?.answer;
      if (turns.length > lastCount && lastCount > 0) {
        // a new question: bring it to the top of the log, so its answer is read from the start
        // (the log scrolls, never the page: scrollIntoView would move every scrolling ancestor)
        const views = el.querySelectorAll<HTMLElement>('app-chat-turn');
        const newest = views[views.length - 1];
        if (newest) el.scrollTop = newest.offsetTop - 12;
      } else if (turns.length !== lastCount) {
        el.scrollTop = el.scrollHeight; // the restored conversation: its end
      }
      lastCount = turns.length;
    });
  }

  protected label(kind: SourceKind): string {
    return docTypeStyle(kind).label;
  }

  protected submit(): void {
    const q = this.question().trim();
    if (!q || this.tooLong() || this.store.busy() || this.store.activeSources().length === 0)
      return;
    this.question.set('');
    void this.store.ask(q);
  }

  protected onKeydown(event: KeyboardEvent): void {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      this.submit();
    }
  }

  protected async newConversation(): Promise<void> {
    await this.store.openConversation('new');
    this.input().nativeElement.focus();
  }

  protected onPastToggle(event: Event): void {
    if ((event.target as HTMLDetailsElement).open) void this.store.loadConversations();
  }

  protected rename(id: string, title: string): void {
    const next = window.prompt('Rename the conversation', title);
    if (next !== null) void this.store.renameConversation(id, next);
  }

  protected async clear(): Promise<void> {
    await this.store.clear();
    this.input().nativeElement.focus();
  }
}
