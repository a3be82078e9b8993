import { HttpInterceptorFn } from '@angular/common/http';
import { Injectable, inject, signal } from '@angular/core';

const STORAGE_KEY = 'devkb.apiKey';
export const API_KEY_HEADER = 'X-API-Key';

function read(): string | null {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

/**
 * The API key for servers that require one (DEVKB_API_KEY): kept in this browser's local
 * storage, sent as X-API-Key. `needed` turns on when the server answers 401 and has no accounts
 * (`authInterceptor`).
 */
@Injectable({ providedIn: 'root' })
export class ApiKeyStore {
  readonly key = signal<string | null>(read());
  readonly needed = signal(false);

  save(key: string): void {
    const k = key.trim() || null;
    try {
      if (k) localStorage.setItem(STORAGE_KEY, k);
      else localStorage.removeItem(STORAGE_KEY);
    } catch {
      /* private mode: keep it for this page only */
    }
    this.key.set(k);
    this.needed.set(false);
  }

  headers(): Record<string, string> {
    const k = this.key();
    return k ? { [API_KEY_HEADER]: k } : {};
  }
}

/** Adds the stored API key to every request. */
export const apiKeyInterceptor: HttpInterceptorFn = (req, next) => {
  const headers = inject(ApiKeyStore).headers();
  return next(Object.keys(headers).length ? req.clone({ setHeaders: headers }) : req);
};
