// The HTML report's generation: hostile text from a target stays text, the totals and coverage add up,
// failures come first, expected failures are told apart, several runs make a matrix, and the inline
// script and style are exactly the ones the Content-Security-Policy allows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { escapeHtml, html } from './html-escape.ts';
import { buildReportModel } from './html-model.ts';
import { renderHtmlReport } from './html.ts';
import { parseSectionTitles } from './html-sections.ts';
import { HOSTILE, sampleResults } from './html-fixtures.ts';

const count = (text: string, needle: string) => text.split(needle).length - 1;
/** The page's rows in document order, as "id:status". */
const rowOrder = (page: string) => [...page.matchAll(/<tr class="spec-row" id="row-\d+" data-status="([^"]*)"[^>]*>\s*<th scope="row"><code>([^<]*)<\/code>/g)].map((m) => `${m[2]}:${m[1]}`);

test('escapeHtml: markup, quotes and control characters become text', () => {
  assert.equal(escapeHtml(`<a href="x" title='y'>&\u0001\u007f</a>`), '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;\\u0001\\u007f&lt;/a&gt;');
  assert.equal(escapeHtml(undefined), '');
  assert.equal(html`<p title="${'"><b>'}">${['<i>', 1]}</p>`.html, '<p title="&quot;&gt;&lt;b&gt;">&lt;i&gt;1</p>');
});

test('hostile text from the target (body, headers, message, URL) is escaped everywhere', () => {
  const page = renderHtmlReport([sampleResults({ failing: true, hostile: true })]);
  assert.equal(count(page, '<script'), 1, 'only the report\'s own script element');
  assert.equal(count(page, '<img'), 0);
  assert.doesNotMatch(page, /onerror="window/);
  assert.doesNotMatch(page, /<\/pre><\/code><script>/);
  assert.ok(page.includes(escapeHtml(HOSTILE)), 'the hostile text is shown, as text');
  assert.ok(page.includes('&lt;script&gt;window.pwned=1&lt;/script&gt;'), "page.includes('&lt;script&gt;window.pwned=1&lt;/script&gt;')");
  assert.ok(page.includes('\\u0001'), 'a control character is shown as an escape');
  // A matrix puts target labels into attributes (data-label) too.
  const matrix = renderHtmlReport([sampleResults({ failing: true, hostile: true }), sampleResults({ target: `x"><script>window.pwned=3</script>` })]);
  assert.equal(count(matrix, '<script'), 1);
  assert.doesNotMatch(matrix, /data-label="x">/);
});

test('the Content-Security-Policy allows exactly the inline style and script, and no network', () => {
  const page = renderHtmlReport([sampleResults({ failing: true })]);
  const csp = (/<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(page)?.[1] ?? '').replaceAll('&#39;', "'");
  const script = /<script>([\s\S]*)<\/script>/.exec(page)?.[1] ?? '';
  const style = /<style>([\s\S]*)<\/style>/.exec(page)?.[1] ?? '';
  const hash = (text: string) => createHash('sha256').update(text).digest('base64');
  assert.match(csp, /default-src 'none'/);
  assert.ok(csp.includes(`script-src 'sha256-${hash(script)}'`), csp);
  assert.ok(csp.includes(`style-src 'sha256-${hash(style)}'`), csp);
  assert.doesNotMatch(page, /<(link|iframe|object|embed)\b/);
  assert.doesNotMatch(page, /\b(src|href)="(https?:)?\/\//, 'nothing is loaded from anywhere');
});

test('totals and coverage of testable rows', () => {
  const results = sampleResults({ failing: true });
  const model = buildReportModel([results]);
  const run = model.runs[0];
  // Rows: b failed, a and d skipped, c passed, e uncovered, f untestable; five are in scope, two have a verdict.
  assert.deepEqual(run.rowCounts, {
    failed: 1, 'expected-failure': 0, skipped: 2, uncovered: 1, excluded: 0, passed: 1, 'not-selected': 0, 'not-applicable': 0, untestable: 1, absent: 0,
  });
  assert.equal(run.inScope, 5);
  assert.equal(run.checked, 2);
  assert.equal(run.coveragePercent, 40);
  assert.equal(run.passPercent, 20);
  const page = renderHtml1(results);
  assert.match(page, /<strong>40\.0%<\/strong> coverage: 2 of 5 spec rows of this run \(testable, of its profile, selected\) checked; 20\.0% pass\./);
  assert.match(page, /1 passed, 1 failed, 1 skipped, 0 excluded, 0 expected failures \(of 3\)/);
  // The bar holds the rows in scope only (not the untestable one), as the headline counts them.
  assert.match(page, /aria-label="spec rows: 1 failed, 2 not verified, 1 uncovered, 1 passed, 1 untestable"/);
  const runBar = page.slice(page.indexOf('aria-label="spec rows:'));
  assert.doesNotMatch(runBar.slice(0, runBar.indexOf('</svg>')), /class="untestable"/);
  assert.match(page, /<time datetime="2026-01-02T03:04:05.000Z">2026-01-02 03:04:05 UTC<\/time>/);
  assert.match(page, /<dd>2\.5 s<\/dd>/);
  assert.match(page, /<code>7<\/code> \(5 runs per property\)/);
  assert.match(page, /✗ FAIL/);
  // A bar per section whose label carries the numbers (not only colours).
  assert.match(page, /aria-label="4\.2 Query parameters: 1 failed, 2 not verified"/);
  // The overview lists sections in the spec's numeric order (2.1 < 4.2 < 4.10), whatever the table order.
  const overview = page.slice(page.indexOf('id="sections-h"'), page.indexOf('id="rows-h"'));
  assert.deepEqual([...overview.matchAll(/<th scope="row"><a href="#sec-\d+">([\d.]+) /g)].map((m) => m[1]), ['2.1', '4.2', '4.10']);
});

function renderHtml1(results: ReturnType<typeof sampleResults>): string {
  return renderHtmlReport([results], { sectionTitles: { '2.1': 'Common shapes', '4.2': 'Query parameters', '4.10': 'Behaviour of writes' } });
}

test('failures first: sections with failures lead, failing rows lead their section, and the top lists them with why', () => {
  const page = renderHtml1(sampleResults({ failing: true }));
  assert.deepEqual(rowOrder(page), ['b:failed', 'a:skipped', 'd:skipped', 'e:uncovered', 'f:untestable', 'c:passed']);
  const failures = page.slice(page.indexOf('id="failures-h"'), page.indexOf('id="sections-h"'));
  assert.match(failures, /1 failing spec row</);
  assert.match(failures, /<a href="#row-2"><code>b<\/code><\/a>/);
  assert.match(failures, /<code>c1<\/code>: GET \/api\/v1\/x with Accept application\/yaml: expected HTTP 406, got 200/);
  // The failing row's evidence: message, seed, path, replay command and curl line, each copyable.
  const evidence = page.slice(page.indexOf('<tr class="evidence" data-for="row-2">'));
  assert.match(evidence, /<summary>Why it fails: <code>c1<\/code>/);
  assert.match(evidence, /<dt>Seed<\/dt><dd><code>42<\/code><\/dd>/);
  assert.match(evidence, /<dt>Path<\/dt><dd><code>0:1<\/code><\/dd>/);
  assert.match(evidence, /data-copy="(ev-2-0-0-\d+)"[^>]*>Copy<\/button><pre><code id="\1">npx tsx suites --target &#39;http:\/\/127\.0\.0\.1:8080&#39; --runs 5 --replay &#39;c1@42:0:0:1&#39;<\/code>/);
  assert.match(evidence, /<code id="ev-2-0-0-\d+">curl -sS -i -H &#39;Accept: text\/html&#39;/);
  assert.doesNotMatch(page, /data-for="row-[013-9]"/, 'only failing rows carry evidence');
});

test('a passing run says so; an expected failure is shown as such and not listed as failing', () => {
  // The sample's skipped check c3 leaves a run INCOMPLETE, unless the expected-failures file lists it.
  assert.match(renderHtml1(sampleResults()), /⤼ INCOMPLETE/);
  const ok = renderHtml1(sampleResults({ expected: ['c3'] }));
  assert.match(ok, /✓ PASS/);
  assert.match(ok, /No spec row fails\./);
  const xfail = buildReportModel([sampleResults({ failing: true, expected: ['b', 'c3'] })]);
  assert.equal(xfail.passed, true);
  assert.deepEqual(xfail.failing, []);
  assert.equal(xfail.rows.find((r) => r.id === 'b')?.cells[0].status, 'expected-failure');
  const page = renderHtmlReport([sampleResults({ failing: true, expected: ['b'] })]);
  assert.match(page, /<summary>Expected failure: <code>c1<\/code>/);
  assert.match(page, /No spec row fails \(apart from expected failures\)\./);
});

test('a matrix of two runs: one column per target, rows by status in each, absent rows marked', () => {
  const broken = sampleResults({ failing: true, target: 'http://broken:1' });
  const fine = sampleResults({ target: 'http://fine:2' });
  fine.rows.push({ id: 'z', section: '9', table: 'versioning', spec: 'Only the newer table has this row.', testable: true, status: 'uncovered', checks: [] });
  const model = buildReportModel([broken, fine]);
  assert.deepEqual(model.runs.map((r) => r.label), ['http://broken:1', 'http://fine:2']);
  const cells = (id: string) => model.rows.find((r) => r.id === id)?.cells.map((c) => c.status);
  assert.deepEqual(cells('b'), ['failed', 'passed']);
  assert.deepEqual(cells('a'), ['skipped', 'passed']);
  assert.deepEqual(cells('z'), ['absent', 'uncovered']);
  assert.equal(model.passed, false);
  const page = renderHtmlReport([broken, fine]);
  assert.match(page, /<title>Conformance matrix: 2 targets<\/title>/);
  assert.match(page, /<th scope="col">http:\/\/broken:1<\/th><th scope="col">http:\/\/fine:2<\/th><th scope="col">Checks<\/th>/);
  assert.ok(rowOrder(page).includes('b:failed passed'), "rowOrder(page).includes('b:failed passed')");
  assert.match(page, /<span class="on">on http:\/\/broken:1:<\/span>/);
  assert.match(page, /<td data-label="http:\/\/fine:2"><span class="badge s-absent">|<td data-label="http:\/\/broken:1"><span class="badge s-absent">/);
  // The same target twice (before and after a fix) still gets two distinct columns.
  assert.deepEqual(buildReportModel([broken, broken]).runs.map((r) => r.label), ['http://broken:1 #1', 'http://broken:1 #2']);
  assert.throws(() => buildReportModel([]), /at least one/);
});

test('section titles come from the spec headings', () => {
  const titles = parseSectionTitles('# Title\n## 4. Endpoints\n### 4.10 Behaviour of writes\n### 2.1 Common shapes  \nplain\n');
  assert.deepEqual(titles, { '0': 'Notation', '4': 'Endpoints', '4.10': 'Behaviour of writes', '2.1': 'Common shapes' });
});
