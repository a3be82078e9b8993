import { HttpErrorResponse } from '@angular/common/http';

/** An API failure with a message fit for the user. `status` 0 means the server could not be reached. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  get unreachable(): boolean {
    return this.status === 0;
  }
}

export const UNREACHABLE_MESSAGE = 'Cannot reach the devkb server. Is it running?';

/** `{"detail": "..."}` (devkb's error body), FastAPI's list form, or a short fallback. */
export function detailOf(body: unknown, status: number): string {
  if (body && typeof body === 'object' && 'detail' in body) {
    const detail = (body as { detail: unknown }).detail;
    if (typeof detail === 'string' && detail) return detail;
    if (Array.isArray(detail)) {
      return detail
        .map((d) => (d && typeof d === 'object' && 'msg' in d ? String(d.msg) : String(d)))
        .join('; ');
    }
  }
  if (typeof body === 'string' && body.trim() && !body.trim().startsWith('<'))
    return body.trim().slice(0, 300);
  if (status === 0) return UNREACHABLE_MESSAGE;
  if (status === 502 || status === 503 || status === 504)
    return `The server is unavailable (${status}).`;
  return `The request failed (${status}).`;
}

export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof HttpErrorResponse)
    return new ApiError(error.status, detailOf(error.error, error.status));
  if (error instanceof TypeError) return new ApiError(0, UNREACHABLE_MESSAGE); // fetch's network failure
  return new ApiError(-1, error instanceof Error ? error.message : String(error));
}
