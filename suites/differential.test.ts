// The differential mode: two faithful simulators agree (exit 0, "agree on every check"); a simulator and one
// behind a proxy that answers a stale PUT with 500 and a missing object with a reason-less 400 differ, and the
// report names the checks and rows, on the console, in results.json and side by side in index.html (exit 1);
// listing those rows as expected failures turns the divergences into expected ones.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from './cli/main.ts';
import { startSimulator } from '../simulator/cluster.ts';
import { jsonOf, startProxy, withJson } from './harness/testdata/proxy-server.ts';
import type { ConformanceResults } from './report/results-schema.ts';

const closers: Array<() => Promise<void>> = [];
after(async () => {
  for (const c of closers.splice(0)) await c();
});

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, { stdout: { write: (s: string) => (out += s), isTTY: false }, stderr: { write: (s: string) => (err += s) } });
  return { code, out, err };
}

async function simulator(): Promise<string> {
  const sim = await startSimulator({ port: 0, host: '127.0.0.1' });
  closers.push(() => sim.close());
  return sim.url.replace(/\/+$/, '');
}

const CHECKS = ['--grep', '^(crud\\.stale-put-conflict|negotiation\\.malformed-body-400)$', '--runs', '3', '--seed', '5', '--workers', '1'];

test('two simulators agree; a broken one is named by check and row, side by side in the HTML report', async () => {
  const [a, b] = [await simulator(), await simulator()];
  const dir = mkdtempSync(join(tmpdir(), 'differential-'));
  const same = await cli(['--target', a, '--reference', b, ...CHECKS, '--report-dir', join(dir, 'same')]);
  assert.equal(same.code, 0, same.out + same.err);
  assert.match(same.out, /agree on every check/);

  const upstream = await simulator();
  const broken = await startProxy(upstream, {
    response(req, res) {
      const body = jsonOf(res);
      // Broken: a stale PUT (409 Conflict) becomes a 500; any 404 a 400 without a reason.
      if (req.method === 'PUT' && res.status === 409) return withJson({ ...res, status: 500 }, { ...body, code: 500, reason: 'InternalError' });
      if (res.status === 404 && body?.kind === 'Status') return withJson({ ...res, status: 400 }, { ...body, code: 400, reason: undefined });
      return res;
    },
  });
  closers.push(() => broken.close());
  const diff = await cli(['--target', a, '--reference', broken.url, ...CHECKS, '--report-dir', join(dir, 'diff')]);
  assert.equal(diff.code, 1, diff.out + diff.err);
  assert.match(diff.out, /crud\.stale-put-conflict/);
  const results = JSON.parse(readFileSync(join(dir, 'diff', 'results.json'), 'utf8')) as ConformanceResults;
  const divergent = new Set(results.differential!.divergences.map((d) => d.checkId));
  assert.ok(divergent.has('crud.stale-put-conflict'), `divergent checks: ${[...divergent].join(', ')}`);
  const rows = new Set(results.differential!.divergences.flatMap((d) => d.rows));
  assert.ok(rows.has('error.optimistic-lock') || [...rows].some((r) => /optimistic|conflict/i.test(r)), `rows: ${[...rows].join(', ')}`);
  const page = readFileSync(join(dir, 'diff', 'index.html'), 'utf8');
  assert.match(page, /Differences from the reference/);
  assert.match(page, /<td><pre>[^<]*<\/pre><\/td><td><pre>[^<]*<\/pre><\/td>/, 'target and reference side by side');

  // Listed as expected: still reported, exit 0.
  const expected = join(dir, 'expected.yaml');
  writeFileSync(expected, [...divergent].map((id) => `- ${id}`).join('\n') + '\n');
  const listed = await cli(['--target', a, '--reference', broken.url, ...CHECKS, '--report-dir', join(dir, 'listed'), '--expected-failures', expected]);
  assert.equal(listed.code, 0, listed.out + listed.err);
  assert.match(listed.out, /\(expected\)/);
});
