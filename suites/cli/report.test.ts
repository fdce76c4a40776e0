// `suites report`: redraws index.html from saved results (default DIR/results.json), puts several runs
// side by side, and refuses with one line (exit 2) what is not a results.json.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from './main.ts';
import { sampleResults } from '../report/html-fixtures.ts';

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, { stdout: { write: (s: string) => (out += s), isTTY: false }, stderr: { write: (s: string) => (err += s) } });
  return { code, out, err };
}

test('suites report reads DIR/results.json by default and writes DIR/index.html', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'conformance-report-'));
  writeFileSync(join(dir, 'results.json'), JSON.stringify(sampleResults({ failing: true, target: 'http://one:1' })));
  const r = await cli(['report', '--report-dir', dir]);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, `report: ${join(dir, 'index.html')} (1 run)\n`);
  const page = readFileSync(join(dir, 'index.html'), 'utf8');
  assert.match(page, /<title>Conformance FAIL: http:\/\/one:1<\/title>/);
});

test('several --from files become one matrix', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'conformance-report-'));
  const a = join(dir, 'a.json');
  const b = join(dir, 'b.json');
  writeFileSync(a, JSON.stringify(sampleResults({ failing: true, target: 'http://one:1' })));
  writeFileSync(b, JSON.stringify(sampleResults({ target: 'http://two:2' })));
  const out = join(dir, 'out');
  const r = await cli(['report', '--from', a, '--from', b, '--report-dir', out]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /\(2 runs side by side\)/);
  const page = readFileSync(join(out, 'index.html'), 'utf8');
  assert.match(page, /<th scope="col">http:\/\/one:1<\/th><th scope="col">http:\/\/two:2<\/th>/);
});

test('what is not a results.json is refused with one line and exit 2', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'conformance-report-'));
  const notJson = join(dir, 'junit.xml');
  writeFileSync(notJson, '<?xml version="1.0"?><testsuites/>');
  const wrongShape = join(dir, 'other.json');
  writeFileSync(wrongShape, JSON.stringify({ formatVersion: 2, run: {} }));
  const future = join(dir, 'future.json');
  writeFileSync(future, JSON.stringify({ ...sampleResults(), formatVersion: 3 }));
  const cases: Array<[string[], RegExp]> = [
    [['report', '--from', join(dir, 'missing.json')], /^error: cannot read .*missing\.json: ENOENT/],
    [['report', '--from', notJson], /^error: .*junit\.xml is not JSON/],
    [['report', '--from', wrongShape], /^error: .*other\.json does not match the results\.json schema: /],
    [['report', '--from', future], /^error: .*future\.json is not a results\.json of format 2 \(formatVersion 3\)/],
    [['report', '--nope'], /^error: Unknown option '--nope'/],
  ];
  for (const [args, expected] of cases) {
    const r = await cli([...args, '--report-dir', join(dir, 'out')]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.out}`);
    assert.equal(r.err.trim().split('\n').length, 1, r.err);
    assert.match(r.err, expected);
  }
  assert.equal(existsSync(join(dir, 'out', 'index.html')), false, 'nothing is written from a bad input');
  const help = await cli(['report', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.out, /npx tsx suites report \[--from results\.json \.\.\.\] \[--report-dir DIR\]/);
});
