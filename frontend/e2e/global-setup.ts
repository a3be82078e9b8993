import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
const STARTUP_MS = 6 * 60_000;

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() =>
        address && typeof address === 'object' ? ok(address.port) : fail(new Error('no port')),
      );
    });
  });
}

async function waitForHealth(url: string, child: ChildProcess, log: string): Promise<void> {
  const deadline = Date.now() + STARTUP_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`devkb serve exited with ${child.exitCode}; see ${log}`);
    try {
      const res = await fetch(`${url}/health`);
      if (res.ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`devkb serve did not answer /health within ${STARTUP_MS / 1000}s; see ${log}`);
}

/** `devkb serve --index` on the demo workspace, on a free port with a temporary data dir; `env` adds settings. */
export async function startDevkb(
  env: NodeJS.ProcessEnv = {},
  logName = 'e2e-server.log',
): Promise<{ url: string; stop: () => Promise<void> }> {
  if (!existsSync(join(ROOT, 'backend/src/devkb/static/index.html'))) {
    throw new Error('The web app is not built: run `npm run build` in frontend/ first.');
  }
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'devkb-e2e-'));
  const logFile = join(ROOT, 'artifacts', logName);
  rmSync(logFile, { force: true });
  mkdirSync(join(ROOT, 'artifacts'), { recursive: true });
  const out = openSync(logFile, 'a');
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    DEVKB_DATA_DIR: dataDir,
    DEVKB_MODEL_CACHE_DIR: join(ROOT, '.cache', 'models'), // one ONNX export per checkout
    DEVKB_HOST: '127.0.0.1',
    DEVKB_PORT: String(port),
    DEVKB_LLM_PROVIDER: 'none', // deterministic extractive answers
    HF_HUB_OFFLINE: '1',
    TRANSFORMERS_OFFLINE: '1',
    ...env,
  };
  delete childEnv['DEVKB_SOURCES_FILE']; // the built-in demo workspace
  delete childEnv['DEVKB_API_KEY'];
  const child = spawn(
    join(ROOT, '.venv/bin/devkb'),
    ['serve', '--index', '--host', '127.0.0.1', '--port', String(port)],
    {
      cwd: ROOT,
      env: childEnv,
      stdio: ['ignore', out, out],
      detached: true,
    },
  );
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  const signal = (sig: NodeJS.Signals) => {
    try {
      if (child.pid) process.kill(-child.pid, sig); // the whole group: uvicorn and its workers
    } catch {
      /* already gone */
    }
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      signal('SIGTERM');
      const timedOut = await Promise.race([
        exited.then(() => false),
        new Promise<boolean>((ok) => setTimeout(() => ok(true), 15_000)),
      ]);
      if (timedOut) signal('SIGKILL');
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitForHealth(url, child, logFile);
  } catch (e) {
    await stop();
    throw e;
  }
  return { url, stop };
}

/**
 * Starts the backend (indexing the demo workspace, with the demo's people: `DEVKB_DEMO_USERS`, so
 * every API route needs a signed-in user — e2e/fixtures.ts signs each test in as the admin) and
 * returns the teardown.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  if (process.env['DEVKB_E2E_URL']) return async () => undefined;
  const { url, stop } = await startDevkb({ DEVKB_DEMO_USERS: 'true' });
  process.env['DEVKB_E2E_URL'] = url;
  return stop;
}
