import {
  ChangeDetectionStrategy,
  Component,
  ElementRef,
  computed,
  inject,
  input,
  output,
  signal,
} from '@angular/core';
import { DomSanitizer, type SafeHtml } from '@angular/platform-browser';
import { firstValueFrom } from 'rxjs';

import { ApiClient } from '../../core/api/api-client';

import type { SourceKind } from '../../core/api/models';
import { docTypeStyle } from '../../shared/doc-type';
import { Icon } from '../../shared/icon';
import type { ChatTurn } from './chat-model';
import { renderAnswer, sourceAnchor } from './markdown';
import { SourceCard } from './source-card';

const STAGES: Record<string, string> = {
  retrieving: 'Searching the knowledge base…',
  generating: 'Writing the answer…',
};

/** One question with its streamed answer, tool steps, citations and source cards. */
@Component({
  selector: 'app-chat-turn',
  imports: [SourceCard, Icon],
  changeDetection: ChangeDetectionStrategy.OnPush,
  templateUrl: './chat-turn.html',
  styleUrl: './chat-turn.scss',
})
export class ChatTurnView {
  private readonly sanitizer = inject(DomSanitizer);
  private readonly host = inject<ElementRef<HTMLElement>>(ElementRef);

  readonly turn = input.required<ChatTurn>();
  /** "Turn Jira on and ask again": the sources to turn on. */
  readonly include = output<SourceKind[]>();

  protected readonly html = computed<SafeHtml>(() => {
    const t = this.turn();
    const titles = t.sources.map((s) => s.title);
    // renderAnswer sanitises with DOMPurify; Angular's own sanitiser would drop the citation links' data.
    return this.sanitizer.bypassSecurityTrustHtml(renderAnswer(t.answer, t.id, titles));
  });
  protected readonly stageText = computed(() => {
    const stage = this.turn().stage;
    return stage ? (STAGES[stage] ?? `${stage[0].toUpperCase()}${stage.slice(1)}…`) : '';
  });
  protected readonly filterText = computed(
    () =>
      this.turn()
        .filter?.map((k) => docTypeStyle(k).label)
        .join(', ') ?? '',
  );
  /** Nothing cited, and the answer does not already say why (a named document not found or filtered out). */
  protected readonly noResults = computed(() => {
    const t = this.turn();
    if (t.streaming || t.error || t.sources.length > 0 || t.filteredOut.length) return false;
    return !/ was not found | which this search leaves out/.test(t.answer);
  });
  /** Which sources were off for this question, in words ("Jira and GitHub"), or '' when all were on. */
  protected readonly offText = computed(() => {
    const on = this.turn().filter;
    if (!on) return '';
    const off = (['jira', 'confluence', 'github'] as SourceKind[]).filter((k) => !on.includes(k));
    return off.map((k) => docTypeStyle(k).label).join(' and ');
  });
  protected readonly includeText = computed(() =>
    this.turn()
      .filteredOut.map((k) => docTypeStyle(k).label)
      .join(' and '),
  );

  protected readonly statusLabel = computed(
    () =>
      ({ answered: 'Answered', partial: 'Partly answered', not_found: 'Not in the sources' })[
        this.turn().status ?? 'answered'
      ],
  );
  protected readonly copied = signal(false);
  protected readonly vote = signal<'up' | 'down' | null>(null);
  private readonly api = inject(ApiClient);

  /** The thumbs-down form (a reason, optional) is open. */
  protected readonly asking = signal(false);

  protected askReason(): void {
    this.asking.set(true);
    setTimeout(() =>
      this.host.nativeElement.querySelector<HTMLTextAreaElement>('.reason textarea')?.focus(),
    );
  }

  /** Thumbs up or down (with the reason given, if any), stored with the question and the cited
   *  documents (POST /feedback; the reason is the feedback's `comment`). */
  protected async rate(rating: 'up' | 'down', reason = ''): Promise<void> {
    const t = this.turn();
    const comment = reason.trim() || null;
    await firstValueFrom(
      this.api.call('sendFeedback', {
        body: {
          question: t.question,
          answer: t.answer,
          rating,
          document_ids: t.sources.map((s) => s.document_id),
          comment,
        },
      }),
    );
    this.asking.set(false);
    this.vote.set(rating);
  }

  protected async copy(): Promise<void> {
    await navigator.clipboard.writeText(this.turn().answer);
    this.copied.set(true);
    setTimeout(() => this.copied.set(false), 2000);
  }

  protected anchor(n: number): string {
    return sourceAnchor(this.turn().id, n);
  }

  /** A tool call in plain words: what was looked for, not the tool's arguments as JSON. */
  protected step(tool: string, a: Record<string, unknown>): string {
    return describeStep(tool, a);
  }

  protected args(a: Record<string, unknown>): string {
    return Object.entries(a)
      .filter(([, v]) => v !== null && v !== undefined && v !== '')
      .map(([k, v]) => `${k}: ${typeof v === 'string' ? `“${v}”` : JSON.stringify(v)}`)
      .join(', ');
  }

  /** `[n]` in the answer: bring its source card into view and give it focus. */
  protected onAnswerClick(event: MouseEvent): void {
    const link = (event.target as Element | null)?.closest?.('a.cite');
    if (!(link instanceof HTMLAnchorElement)) return;
    event.preventDefault();
    const card = this.host.nativeElement.querySelector<HTMLElement>(
      `#${CSS.escape(link.hash.slice(1))}`,
    );
    if (!card) return;
    card.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
    card.focus({ preventScroll: true });
    card.classList.add('flash');
    setTimeout(() => card.classList.remove('flash'), 1600);
  }
}

function words(value: unknown): string {
  if (Array.isArray(value)) return value.map(words).join(', ');
  if (value && typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== null && v !== undefined && v !== '')
      .map(([k, v]) => `${k.replace(/_/g, ' ')} ${words(v)}`)
      .join(', ');
  }
  return String(value);
}

/** "Searched for “webhook retries”", "Looked up key PAY-12", … */
export function describeStep(tool: string, a: Record<string, unknown>): string {
  switch (tool) {
    case 'RAGSearch':
      return `Searched for “${String(a['query'] ?? '')}”`;
    case 'GraphQuery': {
      if (Array.isArray(a['document_ids']) && a['document_ids'].length) {
        return a['reason'] === 'carry-over'
          ? 'Went back to the documents of the previous answer'
          : `Opened ${words(a['document_ids'])}`;
      }
      const lookups = Array.isArray(a['lookups']) ? a['lookups'] : [];
      return lookups.length
        ? `Looked up ${lookups.map(words).join('; ')}`
        : 'Looked up the documents named';
    }
    case 'FetchNeighbors':
      return 'Followed the links of the documents found';
    case 'FilterDocs':
      return 'Kept the documents that match the question';
    default:
      return tool;
  }
}
