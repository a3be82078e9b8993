import { HttpClient } from '@angular/common/http';
import { Injectable, inject } from '@angular/core';
import { firstValueFrom } from 'rxjs';

import { ApiClient, buildPath } from '../../core/api/api-client';
import type { Conversation } from '../../core/api/models';
import { OPERATIONS } from '../../core/api/operations';
import { type ChatTurn } from './chat-model';
import { toTurns } from './chat-history';

/**
 * Past conversations, when the server keeps them (`DEVKB_CHAT_MEMORY=store`). Reopening one sends its
 * id as the `X-Session-ID` header once: the server makes it the session and moves the cookie to it;
 * `X-Session-ID: new` starts a new one.
 */
@Injectable({ providedIn: 'root' })
export class Conversations {
  private readonly api = inject(ApiClient);
  private readonly http = inject(HttpClient);

  async list(): Promise<Conversation[]> {
    return firstValueFrom(this.api.call('listConversations'));
  }

  /** Makes conversation `id` the session (`new`: a fresh one) and returns its turns. */
  async switchTo(id: string): Promise<ChatTurn[]> {
    const history = await firstValueFrom(
      this.http.get<Parameters<typeof toTurns>[0]>(OPERATIONS.chatHistory.path, {
        headers: { 'X-Session-ID': id },
      }),
    );
    return toTurns(history);
  }

  async rename(id: string, title: string): Promise<void> {
    await firstValueFrom(
      this.api.call('renameConversation', { path: { conversation_id: id }, body: { title } }),
    );
  }

  async remove(id: string): Promise<void> {
    await firstValueFrom(this.api.call('deleteConversation', { path: { conversation_id: id } }));
  }

  exportUrl(id: string): string {
    return `${buildPath(OPERATIONS.exportConversation.path, { conversation_id: id })}?format=markdown`;
  }
}
