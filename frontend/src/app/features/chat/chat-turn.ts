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
import { RouterLink } from '@angular/router';
import { firstValueFrom } from 'rxjs';

import { ApiClient } from '../../core/api/api-client';
import { toApiError } from '../../core/api/api-error';
import { AuthStore } from '../../core/auth/auth-store';

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
  imports: [SourceCard, Icon, RouterLink],
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
  /** "Verified by alice on 2026-12-07 (until 2027-03-07)": the line of a verified answer, for its badge. */
  protected readonly verifiedLine = computed(() => {
    const t = this.turn();
    return t.mode === 'verified' ? verifiedLineOf(t.answer) : '';
  });
  protected readonly copied = signal(false);
  protected readonly vote = signal<'up' | 'down' | null>(null);
  private readonly api = inject(ApiClient);

  protected readonly auth = inject(AuthStore);

  /** The thumbs-down form (a reason, optional) is open. */
  protected readonly asking = signal(false);
  /** The "Remember" form is open; what became of it ("Remembered …", or the server's refusal). */
  protected readonly remembering = signal(false);
  protected readonly memoryNote = signal<string | null>(null);
  protected readonly memoryError = signal<string | null>(null);
  protected readonly rememberScope = signal<'private' | 'team'>('private');
  /** The answer as a fact to remember: its text without citation marks, within a memory's size. */
  protected readonly memoryText = computed(() => memoryTextOf(this.turn().answer));

  protected openRemember(): void {
    this.remembering.set(true);
    this.memoryNote.set(null);
    this.memoryError.set(null);
    setTimeout(() =>
      this.host.nativeElement.querySelector<HTMLTextAreaElement>('.remember textarea')?.focus(),
    );
  }

  /** "Remember": the answer (as edited) becomes a memory — private, or the team's for an admin
   *  who chooses it — about the documents it cites (POST /memories). */
  protected async remember(text: string, scope: 'private' | 'team'): Promise<void> {
    const fact = text.trim();
    if (!fact) {
      this.memoryError.set('Write the fact to remember.');
      return;
    }
    try {
      const m = await firstValueFrom(
        this.api.call('createMemory', {
          body: { text: fact, scope, origin: 'conversation', about: this.citedDocuments() },
        }),
      );
      this.remembering.set(false);
      this.memoryError.set(null);
      this.memoryNote.set(
        m.scope === 'team'
          ? m.status === 'proposed'
            ? 'Proposed to the team: a reviewer makes it the team’s.'
            : 'Remembered for the team.'
          : 'Remembered for you.',
      );
    } catch (e) {
      this.memoryError.set(toApiError(e).message);
    }
  }

  /** The scope chosen in the Remember form: an admin's select, else private. */
  protected scopeOf(el: EventTarget | null): 'private' | 'team' {
    return el instanceof HTMLSelectElement && el.value === 'team' ? 'team' : 'private';
  }

  /** The "Verify" form (admins) is open; the expiry in days it proposes. */
  protected readonly verifying = signal(false);
  protected readonly verifyDays = signal(90);

  protected openVerify(): void {
    this.verifying.set(true);
    this.memoryNote.set(null);
    this.memoryError.set(null);
    setTimeout(() =>
      this.host.nativeElement.querySelector<HTMLTextAreaElement>('.verify textarea')?.focus(),
    );
  }

  /** "Verify" (a reviewer): this answer to this question, citing its documents, until an expiry
   *  (POST /memories/answers). A question that means the same is then answered with it first. */
  protected async verifyAnswer(text: string): Promise<void> {
    const answer = text.trim();
    const days = Number(this.verifyDays());
    if (!answer) {
      this.memoryError.set('Write the answer to verify.');
      return;
    }
    if (!(days >= 1 && days <= 3650)) {
      this.memoryError.set('The expiry is between 1 and 3650 days.');
      return;
    }
    try {
      const v = await firstValueFrom(
        this.api.call('verifyAnswer', {
          body: {
            question: this.turn().question.slice(0, 2000),
            answer,
            citations: this.citedDocuments(),
            expires_in_days: days,
          },
        }),
      );
      this.verifying.set(false);
      this.memoryError.set(null);
      this.memoryNote.set(
        `Verified until ${v.expires_at.slice(0, 10)}: the same question gets this answer first.`,
      );
    } catch (e) {
      this.memoryError.set(toApiError(e).message);
    }
  }

  /** Documents the answer cites, memories left out (a memory is not "about" another memory). */
  private citedDocuments(): string[] {
    return this.turn()
      .sources.filter((s) => s.type.toUpperCase() !== 'MEMORY')
      .map((s) => s.document_id)
      .slice(0, 50);
  }

  protected askReason(): void {
    this.asking.set(true);
    setTimeout(() =>
      this.host.nativeElement.querySelector<HTMLTextAreaElement>('.reason textarea')?.focus(),
    );
  }

  /** Thumbs up or down (with the reason given, if any), stored with the question and the cited
   *  documents (POST /feedback; the reason is the feedback's `comment`). */
  protected async rate(rating: 'up' | 'down', reason = '', correction = ''): Promise<void> {
    const t = this.turn();
    const comment = reason.trim() || null;
    const right = correction.trim();
    if (right) {
      // "The right answer is …": a proposed team memory for a reviewer (an admin's is the team's at once)
      try {
        const m = await firstValueFrom(
          this.api.call('createMemory', {
            body: {
              text: right.slice(0, 4000),
              scope: 'team',
              origin: 'conversation',
              about: this.citedDocuments(),
            },
          }),
        );
        this.memoryError.set(null);
        this.memoryNote.set(
          m.status === 'proposed'
            ? 'Your correction is proposed to the team: a reviewer will look at it.'
            : 'Your correction is now a team memory.',
        );
      } catch (e) {
        this.memoryError.set(`The correction was not saved: ${toApiError(e).message}`);
        return;
      }
    }
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

/** The "Verified by … on …" sentence a verified answer ends with ('' when it has none). */
export function verifiedLineOf(answer: string): string {
  const m = /Verified by [^\n]+? on \d{4}-\d{2}-\d{2}(?: \(until \d{4}-\d{2}-\d{2}\))?/.exec(
    answer,
  );
  return m ? m[0] : '';
}

/** An answer as a fact to remember: citation marks ("[1]") and markdown emphasis dropped, at most 4000 characters. */
export function memoryTextOf(answer: string): string {
  return answer
    .replace(/\s*\[\d+\]/g, '')
    .replace(/\*\*|__/g, '')
    .replace(/[ \t]+\n/g, '\n')
    .trim()
    .slice(0, 4000);
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
