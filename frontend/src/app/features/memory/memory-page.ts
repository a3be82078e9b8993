import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import { FormsModule } from '@angular/forms';
import { ActivatedRoute, Router, RouterLink } from '@angular/router';
import { firstValueFrom } from 'rxjs';

import { ApiClient } from '../../core/api/api-client';
import { toApiError } from '../../core/api/api-error';
import type { Memory, VerifiedAnswer } from '../../core/api/models';
import { AuthStore } from '../../core/auth/auth-store';

export type MemoryTab = 'mine' | 'team' | 'review' | 'expiring';

export const TABS: { id: MemoryTab; label: string }[] = [
  { id: 'mine', label: 'Mine' },
  { id: 'team', label: 'Team' },
  { id: 'review', label: 'To review' },
  { id: 'expiring', label: 'Expiring / stale' },
];

/** How a verified answer stands: "expired", "stale: jira:PAY-7 changed", or "expires on 5 Mar 2027". */
export function standing(a: VerifiedAnswer): string {
  if (a.flags.expired) return `expired on ${day(a.expires_at)}`;
  if (a.flags.stale) {
    return a.flags.changed.length
      ? `stale: ${a.flags.changed.join(', ')} changed since it was verified`
      : 'stale: a cited document changed since it was verified';
  }
  return `expires on ${day(a.expires_at)}`;
}

const STATUS_TEXT: Record<string, string> = {
  proposed: 'proposed',
  active: 'current',
  verified: 'verified',
  superseded: 'superseded',
  retracted: 'retracted',
};

/** "2 Dec 2026" from an ISO date or date-time; '' for none. */
export function day(value: string | null | undefined): string {
  if (!value) return '';
  const d = new Date(value);
  return Number.isNaN(d.getTime())
    ? value
    : d.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric' });
}

/** The person's name part of an e-mail ("alice" for alice@acme.example). */
export function person(email: string): string {
  return email.split('@')[0] || email;
}

/** A line under a memory: who, when, and how it stands ("team · added by alice on 2 Dec 2026 · verified by bob on 3 Dec 2026"). */
export function describe(m: Memory): string {
  const parts = [
    m.scope === 'team' ? 'team' : 'private',
    `${m.origin === 'admin' ? 'added' : 'told'} by ${person(m.owner)} on ${day(m.recorded_at)}`,
  ];
  if (m.status === 'verified' && m.verified_by) {
    parts.push(`verified by ${person(m.verified_by)} on ${day(m.verified_at)}`);
  }
  if (m.valid_until) parts.push(`true until ${day(m.valid_until)}`);
  return parts.join(' · ');
}

export function statusText(status: string): string {
  return STATUS_TEXT[status] ?? status;
}

/**
 * `/memory`: what the person and the team told devkb (docs/memory.md) — their own memories, the
 * team's, proposed team memories for a reviewer, recall by words "as of" a date; correct (a new
 * version supersedes the old), verify (admins), forget.
 */
@Component({
  selector: 'app-memory-page',
  imports: [FormsModule, RouterLink],
  changeDetection: ChangeDetectionStrategy.OnPush,
  templateUrl: './memory-page.html',
  styleUrl: './memory-page.scss',
})
export class MemoryPage {
  private readonly api = inject(ApiClient);
  private readonly router = inject(Router);
  protected readonly auth = inject(AuthStore);
  /** "Expiring / stale" is for reviewers (admins). */
  protected readonly tabs = computed(() =>
    TABS.filter((t) => t.id !== 'expiring' || this.auth.isAdmin()),
  );
  protected readonly answers = signal<VerifiedAnswer[]>([]);
  protected readonly withinDays = signal(30);
  protected readonly standing = standing;
  protected readonly tab = signal<MemoryTab>('mine');
  protected readonly memories = signal<Memory[]>([]);
  protected readonly loading = signal(false);
  protected readonly error = signal<string | null>(null);
  protected readonly notice = signal<string | null>(null);
  protected readonly showEarlier = signal(false);
  /** The search box, its "as of" date, and the results shown instead of the tab's list (null: no search). */
  protected readonly query = signal('');
  protected readonly asOf = signal('');
  protected readonly found = signal<Memory[] | null>(null);
  /** The memory being corrected, and its new text. */
  protected readonly editing = signal<string | null>(null);
  protected readonly draft = signal('');
  /** A new memory. */
  protected readonly newText = signal('');
  protected readonly newScope = signal<'private' | 'team'>('private');

  protected readonly me = computed(() => (this.auth.user()?.email ?? 'operator').toLowerCase());
  protected readonly shown = computed(() => {
    const found = this.found();
    if (found) return found;
    const all = this.memories();
    if (this.tab() === 'review' || this.showEarlier()) return all;
    return all.filter((m) => m.status !== 'superseded' && m.status !== 'retracted');
  });
  protected readonly hidden = computed(() =>
    this.found() ? 0 : this.memories().length - this.shown().length,
  );
  protected readonly describe = describe;
  protected readonly statusText = statusText;
  protected readonly day = day;

  constructor() {
    const tab = inject(ActivatedRoute).snapshot.queryParamMap.get('tab');
    if (tab && this.tabs().some((t) => t.id === tab)) this.tab.set(tab as MemoryTab);
    void this.load();
  }

  protected select(tab: MemoryTab): void {
    this.tab.set(tab);
    this.found.set(null);
    this.editing.set(null);
    void this.router.navigate([], { queryParams: { tab }, replaceUrl: true });
    void this.load();
  }

  async load(): Promise<void> {
    this.loading.set(true);
    const tab = this.tab();
    if (tab === 'expiring') {
      try {
        this.answers.set(
          await firstValueFrom(
            this.api.call('reviewVerifiedAnswers', {
              query: { within_days: this.withinDays() },
            }),
          ),
        );
        this.error.set(null);
      } catch (e) {
        this.error.set(toApiError(e).message);
      } finally {
        this.loading.set(false);
      }
      return;
    }
    const query =
      tab === 'mine'
        ? { owner: this.me(), limit: 500 }
        : tab === 'team'
          ? { scope: 'team' as const, limit: 500 }
          : { status: 'proposed' as const, limit: 500 };
    try {
      this.memories.set(await firstValueFrom(this.api.call('listMemories', { query })));
      this.error.set(null);
    } catch (e) {
      this.error.set(toApiError(e).message);
    } finally {
      this.loading.set(false);
    }
  }

  protected async search(): Promise<void> {
    const q = this.query().trim();
    if (!q) {
      this.found.set(null);
      return;
    }
    try {
      const hits = await firstValueFrom(
        this.api.call('searchMemories', {
          query: { q, as_of: this.asOf() || undefined, limit: 50 },
        }),
      );
      this.found.set(hits.map((h) => h.memory));
      this.error.set(null);
    } catch (e) {
      this.error.set(toApiError(e).message);
    }
  }

  protected clearSearch(): void {
    this.query.set('');
    this.asOf.set('');
    this.found.set(null);
  }

  protected async add(): Promise<void> {
    const text = this.newText().trim();
    if (!text) {
      this.error.set('Write the fact to remember, e.g. “the build needs Node 20”.');
      return;
    }
    await this.act(async () => {
      const m = await firstValueFrom(
        this.api.call('createMemory', { body: { text, scope: this.newScope() } }),
      );
      this.newText.set('');
      this.notice.set(
        m.status === 'proposed'
          ? 'Remembered as a proposal: a reviewer makes it the team’s.'
          : 'Remembered.',
      );
    });
  }

  protected startCorrect(m: Memory): void {
    this.editing.set(m.id);
    this.draft.set(m.text);
  }

  protected async correct(m: Memory): Promise<void> {
    const text = this.draft().trim();
    if (!text || text === m.text) {
      this.editing.set(null);
      return;
    }
    await this.act(async () => {
      const next = await firstValueFrom(
        this.api.call('updateMemory', { path: { memory_id: m.id }, body: { text } }),
      );
      this.editing.set(null);
      this.notice.set(
        next.status === 'proposed'
          ? 'Correction proposed: a reviewer makes it current.'
          : 'Corrected: the earlier version stays in its history.',
      );
    });
  }

  protected async verify(m: Memory): Promise<void> {
    await this.act(async () => {
      await firstValueFrom(this.api.call('verifyMemory', { path: { memory_id: m.id } }));
      this.notice.set('Verified.');
    });
  }

  /** Re-verify a verified answer as it stands, for `days` more (it supersedes the earlier one). */
  protected async reverify(a: VerifiedAnswer, days = 90): Promise<void> {
    await this.act(async () => {
      const v = await firstValueFrom(
        this.api.call('verifyAnswer', {
          body: {
            question: a.question,
            answer: a.memory.text,
            citations: a.citations,
            expires_in_days: days,
          },
        }),
      );
      this.notice.set(`Verified again until ${day(v.expires_at)}.`);
    });
  }

  protected async forget(m: Memory): Promise<void> {
    if (!confirm(`Forget “${m.text}” and its earlier versions? This cannot be undone.`)) return;
    await this.act(async () => {
      await firstValueFrom(this.api.call('deleteMemory', { path: { memory_id: m.id } }));
      this.notice.set('Forgotten.');
    });
  }

  /** The owner may change their memory; an admin a team one. */
  protected mayChange(m: Memory): boolean {
    return m.owner === this.me() || (m.scope === 'team' && this.auth.isAdmin());
  }

  protected mayVerify(m: Memory): boolean {
    if (m.status !== 'proposed' && m.status !== 'active') return false;
    return this.auth.isAdmin() || (m.scope === 'private' && m.owner === this.me());
  }

  private async act(run: () => Promise<void>): Promise<void> {
    try {
      await run();
      this.error.set(null);
      if (this.found()) await this.search();
      await this.load();
    } catch (e) {
      this.notice.set(null);
      this.error.set(toApiError(e).message);
    }
  }
}
