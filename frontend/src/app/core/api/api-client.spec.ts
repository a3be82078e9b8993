import { provideHttpClient, withInterceptors } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { firstValueFrom } from 'rxjs';

import { ApiClient, buildParams, buildPath } from './api-client';
import { ApiError, UNREACHABLE_MESSAGE, detailOf } from './api-error';
import { apiErrorInterceptor } from './api-error.interceptor';
import { OPERATIONS } from './operations';

describe('ApiClient', () => {
  let api: ApiClient;
  let http: HttpTestingController;

  beforeEach(() => {
    TestBed.configureTestingModule({
      providers: [
        provideHttpClient(withInterceptors([apiErrorInterceptor])),
        provideHttpClientTesting(),
      ],
    });
    api = TestBed.inject(ApiClient);
    http = TestBed.inject(HttpTestingController);
  });
  afterEach(() => http.verify());

  it('encodes document ids (":" and "/") into the path', async () => {
    const done = firstValueFrom(
      api.call('getDocument', { path: { document_id: 'github:acme/pay:file:src/a.py' } }),
    );
    const req = http.expectOne('/documents/github%3Aacme%2Fpay%3Afile%3Asrc%2Fa.py');
    expect(req.request.method).toBe('GET');
    req.flush({ document: { id: 'x' }, chunks: [] });
    expect((await done).chunks).toEqual([]);
  });

  it('repeats array query parameters and drops undefined ones', async () => {
    const done = firstValueFrom(
      api.call('getGraph', { query: { limit: 50, types: ['jira', 'github'], kinds: undefined } }),
    );
    const req = http.expectOne((r) => r.url === '/graph');
    expect(req.request.params.getAll('types')).toEqual(['jira', 'github']);
    expect(req.request.params.get('limit')).toBe('50');
    expect(req.request.params.has('kinds')).toBe(false);
    req.flush({ nodes: [], edges: [] });
    await done;
  });

  it('posts JSON bodies', async () => {
    const done = firstValueFrom(api.call('ask', { body: { question: 'why?', sources: ['jira'] } }));
    const req = http.expectOne('/ask');
    expect(req.request.method).toBe('POST');
    expect(req.request.body).toEqual({ question: 'why?', sources: ['jira'] });
    req.flush({ answer: 'a', sources: [], tool_calls: [], mode: 'extractive' });
    expect((await done).answer).toBe('a');
  });

  it('turns failures into ApiError with the server detail', async () => {
    const done = firstValueFrom(api.call('syncSource', { path: { name: 'jira' } }));
    http
      .expectOne('/sources/jira/sync')
      .flush(
        { detail: 'a sync of jira is already running' },
        { status: 409, statusText: 'Conflict' },
      );
    const err = await done.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(409);
    expect((err as ApiError).message).toBe('a sync of jira is already running');
  });

  it('says when the server cannot be reached', async () => {
    const done = firstValueFrom(api.call('health'));
    http.expectOne('/health').error(new ProgressEvent('error'), { status: 0 });
    const err = (await done.catch((e: unknown) => e)) as ApiError;
    expect(err.unreachable).toBe(true);
    expect(err.message).toBe(UNREACHABLE_MESSAGE);
  });
});

describe('api helpers', () => {
  it('knows every operation the front end calls', () => {
    for (const op of [
      'ask',
      'askStream',
      'chatHistory',
      'chatClear',
      'getGraph',
      'searchGraph',
      'getDocument',
      'documentNeighbors',
      'getStats',
      'listSources',
      'syncSource',
      'getRun',
      'health',
    ]) {
      expect(Object.keys(OPERATIONS)).toContain(op);
    }
  });

  it('builds paths and params', () => {
    expect(buildPath('/sources/{name}/runs/{run_id}', { name: 'wiki', run_id: 'ab12' })).toBe(
      '/sources/wiki/runs/ab12',
    );
    expect(() => buildPath('/documents/{document_id}', {})).toThrow();
    expect(buildParams({ a: [1, 2], b: null, c: true }).toString()).toBe('a=1&a=2&c=true');
  });

  it('reads error details in their several shapes', () => {
    expect(detailOf({ detail: 'nope' }, 400)).toBe('nope');
    expect(detailOf({ detail: [{ msg: 'field required' }, { msg: 'too long' }] }, 422)).toBe(
      'field required; too long',
    );
    expect(detailOf('<html>bad gateway</html>', 502)).toBe('The server is unavailable (502).');
    expect(detailOf(null, 500)).toBe('The request failed (500).');
  });
});
