import { Injectable, inject } from '@angular/core';

import { ApiError, detailOf, toApiError } from '../../core/api/api-error';
import { ApiKeyStore } from '../../core/api/api-key';
import { AuthStore } from '../../core/auth/auth-store';
import type { AskRequest, AskResponse, SourceCitation, ToolCall } from '../../core/api/models';
import { OPERATIONS } from '../../core/api/operations';
import { readSse } from '../../core/sse';

/** The events of `POST /ask/stream`, parsed. Payload shapes are the generated API models. */
export type AskEvent =
  | { type: 'status'; stage: string }
  | { type: 'tool_call'; call: ToolCall }
  | { type: 'citations'; sources: SourceCitation[] }
  | { type: 'token'; text: string }
  | { type: 'done'; response: AskResponse }
  | { type: 'error'; detail: string };

export const ASK_STREAM_PATH = OPERATIONS.askStream.path;

/** Decodes one SSE message into an `AskEvent`; unknown event names are skipped (null). */
export function toAskEvent(event: string, data: string): AskEvent | null {
  let payload: Record<string, unknown>;
  try {
    payload = JSON.parse(data) as Record<string, unknown>;
  } catch {
    return event === 'error' ? { type: 'error', detail: data } : null;
  }
  switch (event) {
    case 'status':
      return { type: 'status', stage: String(payload['stage'] ?? '') };
    case 'tool_call':
      return { type: 'tool_call', call: payload as unknown as ToolCall };
    case 'citations':
      return { type: 'citations', sources: (payload['sources'] as SourceCitation[]) ?? [] };
    case 'token':
      return { type: 'token', text: String(payload['text'] ?? '') };
    case 'done':
      return { type: 'done', response: payload as unknown as AskResponse };
    case 'error':
      return { type: 'error', detail: detailOf(payload, 500) };
    default:
      return null;
  }
}

/**
 * Streams an answer from `POST /ask/stream` with fetch and a ReadableStream (EventSource
 * cannot POST). Same-origin fetch sends the session cookie, so the turn lands in the history.
 */
@Injectable({ providedIn: 'root' })
export class AskStream {
  private readonly keys = inject(ApiKeyStore);
  private readonly auth = inject(AuthStore);

  async *ask(request: AskRequest, signal?: AbortSignal): AsyncGenerator<AskEvent> {
    let response: Response;
    try {
      response = await fetch(ASK_STREAM_PATH, {
        method: OPERATIONS.askStream.method,
        headers: {
          'Content-Type': 'application/json',
          Accept: 'text/event-stream',
          ...this.keys.headers(),
        },
        body: JSON.stringify(request),
        credentials: 'same-origin',
        signal,
      });
    } catch (e) {
      if (signal?.aborted) return;
      throw toApiError(e);
    }
    if (!response.ok || !response.body) {
      const text = await response.text().catch(() => '');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* keep the text */
      }
      if (response.status === 401) this.auth.unauthorized();
      throw new ApiError(response.status, detailOf(body, response.status));
    }
    try {
      for await (const message of readSse(response.body)) {
        const event = toAskEvent(message.event, message.data);
        if (event) yield event;
      }
    } catch (e) {
      if (signal?.aborted) return;
      throw toApiError(e);
    }
  }
}
