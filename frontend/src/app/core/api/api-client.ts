import { HttpClient, HttpParams } from '@angular/common/http';
import { Injectable, inject } from '@angular/core';
import { Observable } from 'rxjs';

import { OPERATIONS, type OperationId } from './operations';
import type { operations } from './schema';

/** Picks the JSON body of a response or request entry of the generated schema. */
type JsonOf<T> = T extends { content: { 'application/json': infer R } } ? R : never;
type Responses<K extends OperationId> = operations[K]['responses'];
type SuccessCode<K extends OperationId> = Extract<keyof Responses<K>, 200 | 201 | 202>;

/** The JSON body of an operation's success response. */
export type OkBody<K extends OperationId> = JsonOf<Responses<K>[SuccessCode<K>]>;

type Params<K extends OperationId> = operations[K]['parameters'];
type PathOf<K extends OperationId> = Params<K> extends { path: infer P } ? P : never;
type QueryOf<K extends OperationId> = Params<K> extends { query?: infer Q } ? Q : never;
type BodyOf<K extends OperationId> = operations[K] extends { requestBody: infer B }
  ? JsonOf<B>
  : never;

/** Arguments of one call: path and query parameters and the JSON body, each only where the operation has them. */
export type CallArgs<K extends OperationId> = ([PathOf<K>] extends [never]
  ? { path?: never }
  : { path: PathOf<K> }) &
  ([QueryOf<K>] extends [never | undefined] ? { query?: never } : { query?: QueryOf<K> }) &
  ([BodyOf<K>] extends [never] ? { body?: never } : { body: BodyOf<K> });

type QueryValue =
  string | number | boolean | readonly (string | number | boolean)[] | null | undefined;

/** Fills `{name}` placeholders with URL-encoded values (document ids hold ':' and '/'). */
export function buildPath(
  template: string,
  path: Record<string, string | number> | undefined,
): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = path?.[name];
    if (value === undefined) throw new Error(`missing path parameter ${name} for ${template}`);
    return encodeURIComponent(String(value));
  });
}

export function buildParams(query: Record<string, QueryValue> | undefined): HttpParams {
  let params = new HttpParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) {
      for (const v of value) params = params.append(key, String(v));
    } else {
      params = params.set(key, String(value));
    }
  }
  return params;
}

/**
 * The typed API client: one generic `call` keyed by the OpenAPI operation id. Paths, methods,
 * parameters and bodies all come from the generated `schema.ts` and `operations.ts`.
 */
@Injectable({ providedIn: 'root' })
export class ApiClient {
  private readonly http = inject(HttpClient);

  call<K extends OperationId>(
    operation: K,
    // `{} extends CallArgs<K>`: the arguments are optional exactly when every part of them is
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type
    ...[args]: {} extends CallArgs<K> ? [CallArgs<K>?] : [CallArgs<K>]
  ): Observable<OkBody<K>> {
    const { method, path } = OPERATIONS[operation];
    const a = (args ?? {}) as {
      path?: Record<string, string | number>;
      query?: Record<string, QueryValue>;
      body?: unknown;
    };
    const url = buildPath(path, a.path);
    return this.http.request<OkBody<K>>(method, url, {
      params: buildParams(a.query),
      body: a.body,
      responseType: 'json',
    });
  }

  /** A multipart upload of one file (`POST /uploads`): the browser sets the boundary. */
  upload(file: File): Observable<OkBody<'uploadFile'>> {
    const { method, path } = OPERATIONS.uploadFile;
    const form = new FormData();
    form.append('file', file, file.name);
    return this.http.request<OkBody<'uploadFile'>>(method, path, {
      body: form,
      responseType: 'json',
    });
  }
}
