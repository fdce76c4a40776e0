// The compiled build of `npx tsx simulator` (compiled.ts, scripts/build-simulator.mjs) as a user's start meets it:
// made for this checkout, its chunks free of ES module syntax (so that none passes through tsx's loader thread),
// serving through `node --import tsx simulator` (the lazily loaded chunks too: OpenAPI's protobuf schemas, the
// daemon, the nodes), and V8's code cache written beside the chunks after a start and used by the next.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compiledEntry } from './compiled.ts';
import { freePort } from './testing/ports.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = await probe().catch(() => undefined);
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `node --import tsx simulator` on a free port until `body` is done; its output for messages. */
async function withSimulator(body: (url: string) => Promise<void>): Promise<void> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'simulator', '--port', String(port)], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (out = (out + b.toString()).slice(-20_000)));
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(`the simulator's /api (output: ${out.slice(-2000)})`, async () => ((await fetch(`${url}/api`)).ok ? true : undefined));
    await body(url);
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
}

test('the compiled build runs the simulator from CommonJS chunks, and its code cache is written and used', { timeout: 120_000 }, async () => {
  const built = spawnSync(process.execPath, [join(REPO, 'scripts', 'build-simulator.mjs'), REPO], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  assert.equal(built.status, 0, built.stderr);
  const entry = compiledEntry();
  assert.ok(entry, 'a current build after building');
  const dir = dirname(entry);
  const chunks = readdirSync(dir).filter((f) => f.endsWith('.js'));
  for (const chunk of chunks) {
    const text = readFileSync(join(dir, chunk), 'latin1');
    assert.doesNotMatch(text, /^\s*(import|export)\s[\w{*"]/m, `${chunk} holds ES module syntax`);
    assert.doesNotMatch(text, /(?<![\w$.])import\(/, `${chunk} holds an import()`);
  }
  // The first start after this writes the code cache anew (a cache is only an optimisation: removing it is safe).
  for (const f of readdirSync(dir)) if (f.includes('.js.v8-')) rmSync(join(dir, f), { force: true });

  await withSimulator(async (url) => {
    const created = await fetch(`${url}/api/v1/namespaces/default/configmaps`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'compiled' }, data: { a: 'b' } }) });
    assert.equal(created.status, 201, await created.text());
    // The OpenAPI document reads the .proto reflection; nodes and the daemon come from chunks loaded after start.
    assert.equal((await fetch(`${url}/openapi/v2`)).status, 200);
    await waitFor('three nodes registered', async () => {
      const nodes = (await (await fetch(`${url}/api/v1/nodes`)).json()) as { items: unknown[] };
      return nodes.items.length === 3 ? true : undefined;
    });
    // The code cache is written a few seconds after a start, for every chunk loaded by then.
    await waitFor('the code cache of the entry chunk', async () => (readdirSync(dir).some((f) => f.startsWith('main.js.v8-')) ? true : undefined), 15_000);
  });
  const cached = readdirSync(dir).filter((f) => f.includes('.js.v8-'));
  assert.ok(cached.length >= 3, `code caches of the loaded chunks: ${cached.join(', ')}`);

  // The next start reads them and serves as well.
  await withSimulator(async (url) => {
    const got = await fetch(`${url}/api/v1/namespaces/default/configmaps`);
    assert.equal(got.status, 200);
  });
});
