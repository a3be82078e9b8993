import { Injectable, inject } from '@angular/core';
import { firstValueFrom } from 'rxjs';

import { ApiClient, type OkBody } from '../../core/api/api-client';
import { type ChatTurn, emptyTurn } from './chat-model';

type History = OkBody<'chatHistory'>;

/** `GET /chat/history` and `POST /chat/clear`; the session is the X-Session-ID cookie the server sets. */
@Injectable({ providedIn: 'root' })
export class ChatHistory {
  private readonly api = inject(ApiClient);

  async load(): Promise<ChatTurn[]> {
    return toTurns(await firstValueFrom(this.api.call('chatHistory')));
  }

  async clear(): Promise<void> {
    await firstValueFrom(this.api.call('chatClear'));
  }
}

/** Pairs the stored messages into turns: a user message, then the assistant's answer (if any). */
export function toTurns(history: History): ChatTurn[] {
  const turns: ChatTurn[] = [];
  history.messages.forEach((m, i) => {
    if (m.role === 'user') {
      turns.push(emptyTurn(`h${i}`, m.content));
    } else {
      const last = turns.at(-1);
      if (last && !last.answer) {
        last.answer = m.content;
        last.sources = m.sources ?? [];
      } else {
        turns.push({ ...emptyTurn(`h${i}`, ''), answer: m.content, sources: m.sources ?? [] });
      }
    }
  });
  return turns;
}
