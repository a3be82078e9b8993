import { ChangeDetectionStrategy, Component, inject, signal } from '@angular/core';
import { FormsModule } from '@angular/forms';
import { firstValueFrom } from 'rxjs';

import { ApiClient } from '../../core/api/api-client';
import { toApiError } from '../../core/api/api-error';
import type { components } from '../../core/api/schema';

export type ReviewerScope = components['schemas']['ReviewerScopeOut'];

/** "project:PAY" → "Jira project PAY"; "space:ENG" → "Confluence space ENG". */
export function scopeLabel(scope: string): string {
  const [kind, key] = scope.split(':', 2);
  return kind === 'space' ? `Confluence space ${key}` : `Jira project ${key}`;
}

/** "a@x, b@y" or one per line → the e-mails, trimmed, without blanks or repeats. */
export function parsePeople(text: string): string[] {
  return [
    ...new Set(
      text
        .split(/[\s,;]+/)
        .map((p) => p.trim().toLowerCase())
        .filter(Boolean),
    ),
  ];
}

/**
 * "Reviewers" (`GET /admin/reviewers`, `PUT /admin/reviewers/{scope}`): besides admins, who
 * verifies answers and team memories about a Jira project or Confluence space — their team facts
 * about it are current at once. People named by `DEVKB_MEMORY_REVIEWERS` are shown, read-only.
 */
@Component({
  selector: 'app-reviewers-card',
  imports: [FormsModule],
  changeDetection: ChangeDetectionStrategy.OnPush,
  templateUrl: './reviewers-card.html',
  styleUrls: ['./retrieval-card.scss', './reviewers-card.scss'],
})
export class ReviewersCard {
  private readonly api = inject(ApiClient);
  protected readonly scopeLabel = scopeLabel;

  protected readonly scopes = signal<ReviewerScope[]>([]);
  protected readonly loaded = signal(false);
  protected readonly error = signal<string | null>(null);
  protected readonly note = signal('');
  protected readonly kind = signal<'project' | 'space'>('project');
  protected readonly key = signal('');
  protected readonly people = signal('');
  protected readonly busy = signal(false);

  constructor() {
    void this.load();
  }

  async load(): Promise<void> {
    try {
      this.scopes.set(await firstValueFrom(this.api.call('listReviewers')));
      this.error.set(null);
    } catch (e) {
      this.error.set(toApiError(e).message);
    } finally {
      this.loaded.set(true);
    }
  }

  protected async save(scope: string, people: string[]): Promise<void> {
    this.busy.set(true);
    try {
      this.scopes.set(
        await firstValueFrom(this.api.call('setReviewers', { path: { scope }, body: { people } })),
      );
      this.error.set(null);
      this.note.set(
        people.length
          ? `${scopeLabel(scope)}: reviewed by ${people.join(', ')}.`
          : `${scopeLabel(scope)}: admins alone review it now.`,
      );
      this.key.set('');
      this.people.set('');
    } catch (e) {
      this.error.set(toApiError(e).message);
    } finally {
      this.busy.set(false);
    }
  }

  protected submit(): void {
    const key = this.key().trim().toUpperCase();
    if (!key) {
      this.error.set('Give the project or space key (e.g. PAY).');
      return;
    }
    void this.save(`${this.kind()}:${key}`, parsePeople(this.people()));
  }

  protected remove(scope: ReviewerScope, email: string): void {
    void this.save(
      scope.scope,
      scope.people.filter((p) => p !== email),
    );
  }
}
