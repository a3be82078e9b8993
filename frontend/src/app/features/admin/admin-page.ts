import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import { FormsModule } from '@angular/forms';
import { firstValueFrom } from 'rxjs';

import { ApiClient } from '../../core/api/api-client';
import { toApiError } from '../../core/api/api-error';
import type { components } from '../../core/api/schema';
import { AuthStore, type AuthUser } from '../../core/auth/auth-store';
import { when } from './format';
import { RetrievalCard } from './retrieval-card';
import { ReviewersCard } from './reviewers-card';

type S = components['schemas'];
export type Role = S['UserIn']['role'];
export type PermissionSource = S['PermissionSourceOut'];

export const ROLES: readonly Role[] = ['admin', 'member'];

/** One line for the result of a permission sync: each source with its state and pairs. */
export function syncSummary(sources: readonly PermissionSource[]): string {
  if (sources.length === 0) return 'No source mirrors permissions.';
  return sources
    .map((s) => `${s.source}: ${s.state}${s.state === 'ok' ? ` (${s.pairs} pairs)` : ''}`)
    .join(' · ');
}

/**
 * `/admin` ("People", admins only): the users (role, disable, add), the documents shared with
 * every member, the permission sync of each source, and retrieval adapted to the graph. A member sees only a note that the page
 * is for admins, and no request is made.
 */
@Component({
  selector: 'app-admin-page',
  imports: [FormsModule, RetrievalCard, ReviewersCard],
  changeDetection: ChangeDetectionStrategy.OnPush,
  templateUrl: './admin-page.html',
  styleUrl: './admin-page.scss',
})
export class AdminPage {
  private readonly api = inject(ApiClient);
  protected readonly auth = inject(AuthStore);
  protected readonly isAdmin = computed(() => this.auth.user()?.role === 'admin');
  protected readonly roles = ROLES;
  protected readonly when = when;

  // users
  protected readonly users = signal<AuthUser[]>([]);
  protected readonly usersLoaded = signal(false);
  protected readonly usersError = signal<string | null>(null);
  protected readonly usersNote = signal('');
  protected readonly busyUser = signal<string | null>(null);
  protected readonly newEmail = signal('');
  protected readonly newName = signal('');
  protected readonly newRole = signal<Role>('member');
  protected readonly newPassword = signal('');

  // shared with everyone
  protected readonly shared = signal<string[]>([]);
  protected readonly sharedLoaded = signal(false);
  protected readonly sharedError = signal<string | null>(null);
  protected readonly sharedNote = signal('');
  protected readonly shareId = signal('');

  // permission sync
  protected readonly sources = signal<PermissionSource[]>([]);
  protected readonly intervalMinutes = signal<number | null>(null);
  protected readonly permsError = signal<string | null>(null);
  protected readonly syncing = signal(false);
  protected readonly syncResult = signal('');

  constructor() {
    if (this.auth.accounts() && this.isAdmin()) {
      void this.loadUsers();
      void this.loadShared();
      void this.loadPermissions();
    }
  }

  async loadUsers(): Promise<void> {
    try {
      this.users.set(await firstValueFrom(this.api.call('listUsers')));
      this.usersError.set(null);
    } catch (e) {
      this.usersError.set(toApiError(e).message);
    } finally {
      this.usersLoaded.set(true);
    }
  }

  async loadShared(): Promise<void> {
    try {
      this.shared.set((await firstValueFrom(this.api.call('listShared'))).shared);
      this.sharedError.set(null);
    } catch (e) {
      this.sharedError.set(toApiError(e).message);
    } finally {
      this.sharedLoaded.set(true);
    }
  }

  async loadPermissions(): Promise<void> {
    try {
      const p = await firstValueFrom(this.api.call('permissionSyncStatus'));
      this.sources.set(p.sources);
      this.intervalMinutes.set(p.interval_minutes);
      this.permsError.set(null);
    } catch (e) {
      this.permsError.set(toApiError(e).message);
    }
  }

  protected isMe(user: AuthUser): boolean {
    return user.email === this.auth.user()?.email;
  }

  /** PATCH /admin/users/{email}; the row shows the API's answer, an error its `detail`. */
  protected async update(
    user: AuthUser,
    change: { role?: Role; disabled?: boolean },
    done: string,
    revert?: () => void,
  ): Promise<void> {
    this.busyUser.set(user.email);
    this.usersNote.set('');
    try {
      const updated = await firstValueFrom(
        this.api.call('updateUser', { path: { email: user.email }, body: change }),
      );
      this.users.update((list) => list.map((u) => (u.email === user.email ? updated : u)));
      this.usersError.set(null);
      this.usersNote.set(`${updated.email}: ${done}.`);
    } catch (e) {
      this.usersError.set(toApiError(e).message);
      revert?.();
    } finally {
      this.busyUser.set(null);
    }
  }

  /** The role picked in a row's select; on an error the select goes back to the user's role. */
  protected changeRole(user: AuthUser, select: HTMLSelectElement): void {
    const role = select.value;
    if ((role !== 'admin' && role !== 'member') || role === user.role) return;
    void this.update(user, { role }, `role ${role}`, () => (select.value = user.role));
  }

  protected toggleDisabled(user: AuthUser): void {
    const disabled = !user.disabled;
    void this.update(user, { disabled }, disabled ? 'disabled' : 'enabled');
  }

  protected async addUser(): Promise<void> {
    const email = this.newEmail().trim();
    if (!email) {
      this.usersError.set('Enter the e-mail address of the new user.');
      return;
    }
    const password = this.newPassword();
    this.usersNote.set('');
    try {
      const user = await firstValueFrom(
        this.api.call('createUser', {
          body: {
            email,
            name: this.newName().trim(),
            role: this.newRole(),
            password: password || null,
          },
        }),
      );
      this.newEmail.set('');
      this.newName.set('');
      this.newRole.set('member');
      this.newPassword.set('');
      this.usersError.set(null);
      this.usersNote.set(`Added ${user.email}.`);
      await this.loadUsers();
    } catch (e) {
      this.usersError.set(toApiError(e).message);
    }
  }

  /** POST /admin/shared: share (or take back) one document with every member. */
  protected async setShared(id: string, shared: boolean): Promise<void> {
    const documentId = id.trim();
    if (!documentId) {
      this.sharedError.set('Enter a document id, e.g. jira:PAY-90.');
      return;
    }
    this.sharedNote.set('');
    try {
      const res = await firstValueFrom(
        this.api.call('setShared', { body: { document_ids: [documentId], shared } }),
      );
      this.shared.set(res.shared);
      this.sharedError.set(null);
      if (shared) this.shareId.set('');
      this.sharedNote.set(
        shared ? `Shared ${documentId} with everyone.` : `${documentId} is no longer shared.`,
      );
    } catch (e) {
      this.sharedError.set(toApiError(e).message);
    }
  }

  /** POST /admin/permissions/sync (waits for the run), then each source's result. */
  protected async syncNow(): Promise<void> {
    this.syncing.set(true);
    this.syncResult.set('');
    try {
      const p = await firstValueFrom(this.api.call('syncPermissions'));
      this.sources.set(p.sources);
      this.intervalMinutes.set(p.interval_minutes);
      this.permsError.set(null);
      this.syncResult.set(`Synced. ${syncSummary(p.sources)}`);
    } catch (e) {
      this.permsError.set(toApiError(e).message);
    } finally {
      this.syncing.set(false);
    }
  }
}
