// index.html: the coverage report of one run, or a matrix of several runs (spec rows by targets). One
// self-contained file: inline CSS and script, no network (a Content-Security-Policy forbids it), readable
// without the script and in print. Every value from results.json is escaped through the html`` template.
import { createHash } from 'node:crypto';
import type { CheckResult, ConformanceResults, ExchangeEvidence } from './results-schema.ts';
import { html, raw, type Raw } from './html-escape.ts';
import {
  STATUS_LABELS, IN_SCOPE, STATUS_ORDER, buildReportModel, compareSections, type Cell, type DisplayStatus, type Failure, type ReportModel,
  type RowView, type RunView, type SectionView, type StatusCounts,
} from './html-model.ts';
import { REPORT_CSS } from './html-style.ts';
import { REPORT_JS } from './html-script.ts';

export interface HtmlReportOptions {
  /** "4.3" -> "List, chunking and watch" (see html-sections.ts). */
  sectionTitles?: Record<string, string>;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64');

function badge(status: DisplayStatus): Raw {
  const { icon, text } = STATUS_LABELS[status];
  return html`<span class="badge s-${status}"><span aria-hidden="true">${icon}</span> ${text}</span>`;
}

function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  return s < 120 ? `${s.toFixed(1)} s` : `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

/** "2026-11-22 00:19:34 UTC": the same for every reader, whatever their time zone. */
function when(iso: string): Raw {
  const d = new Date(iso);
  const text = Number.isNaN(d.getTime()) ? iso : `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
  return html`<time datetime="${iso}">${text}</time>`;
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const firstLine = (text: string | undefined) => (text ?? '').split('\n')[0];

/** A stacked bar of a count per status; the numbers are in its label and beside it, never only in colour. */
function bar(counts: StatusCounts, label: string): Raw {
  // The rows in scope only (IN_SCOPE), as the headline's percentages count them.
  const total = IN_SCOPE.reduce((n, s) => n + counts[s], 0);
  let x = 0;
  const rects = IN_SCOPE.filter((s) => counts[s] > 0).map((s) => {
    const width = total === 0 ? 0 : (counts[s] / total) * 100;
    const rect = html`<rect class="${s}" x="${x.toFixed(3)}" y="0" width="${width.toFixed(3)}" height="10"></rect>`;
    x += width;
    return rect;
  });
  return html`<svg class="bar" viewBox="0 0 100 10" preserveAspectRatio="none" role="img" aria-label="${label}">${rects}</svg>`;
}

function countsText(counts: StatusCounts): string {
  return STATUS_ORDER.filter((s) => counts[s] > 0).map((s) => `${counts[s]} ${STATUS_LABELS[s].text}`).join(', ') || 'no rows';
}

function countBadge(s: DisplayStatus, n: number): Raw {
  return html`<span class="badge s-${s}"><span aria-hidden="true">${STATUS_LABELS[s].icon}</span> ${n} ${STATUS_LABELS[s].text}</span>`;
}

function countBadges(counts: StatusCounts): Raw {
  return html`${STATUS_ORDER.filter((s) => counts[s] > 0).map((s) => html`${countBadge(s, counts[s])} `)}`;
}

/** The totals every run card shows, zeros included, so two cards compare line by line. */
const TOTAL_STATUSES: DisplayStatus[] = ['passed', 'failed', 'expected-failure', 'skipped', 'excluded', 'uncovered', 'not-selected', 'not-applicable', 'untestable'];
const VERDICT_BADGES = { PASS: ['pass', '✓ PASS'], INCOMPLETE: ['incomplete', '⤼ INCOMPLETE'], FAIL: ['fail', '✗ FAIL'] } as const;

function runCard(run: RunView): Raw {
  const r = run.results;
  const c = r.totals.checks;
  const rows = run.rowCounts;
  return html`<section class="run" aria-labelledby="run-${run.index}-h">
<h3 id="run-${run.index}-h">${run.label}</h3>
<p><span class="verdict ${VERDICT_BADGES[r.verdict][0]}">${VERDICT_BADGES[r.verdict][1]}</span> profile <strong>${r.run.profile}</strong>${r.run.quick ? ' (--quick: the history-window checks left out)' : ''}${r.run.interrupted ? html` <strong>interrupted: results are partial</strong>` : ''}</p>
<p class="coverage"><strong>${run.coveragePercent.toFixed(1)}%</strong> coverage: ${run.checked} of ${run.inScope} spec rows of this run (testable, of its profile, selected) checked; ${run.passPercent.toFixed(1)}% pass.</p>
${bar(rows, `spec rows: ${countsText(rows)}`)}
<h4 class="visually-hidden">Spec rows</h4>
<ul class="totals" aria-label="spec rows">
${TOTAL_STATUSES.map((s) => html`<li>${countBadge(s, rows[s])}</li>`)}
</ul>
<dl>
<dt>Target</dt><dd><code>${r.run.target}</code>${r.run.embedded ? ' (embedded simulator)' : ''}</dd>
<dt>Started</dt><dd>${when(r.run.startedAt)}</dd>
<dt>Duration</dt><dd>${duration(r.run.durationMs)}</dd>
<dt>Seed</dt><dd><code>${r.run.seed}</code> (${r.run.runs} runs per property)</dd>
<dt>Profile</dt><dd>${r.run.profile}</dd>
<dt>Checks</dt><dd>${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped, ${c.excluded} excluded, ${c.expectedFailures} expected failures${c.unexpectedPasses ? `, ${c.unexpectedPasses} unexpected passes` : ''} (of ${c.total})</dd>
<dt>Suites</dt><dd>${r.run.suites.join(', ') || 'none'}${r.run.grep ? html`; grep <code>${r.run.grep}</code>` : ''}${r.run.skip ? html`; skip <code>${r.run.skip}</code>` : ''}</dd>
<dt>Serves</dt><dd>${r.run.served.join(', ') || 'nothing found by discovery'}</dd>
${r.expectedFailures.file ? html`<dt>Expected failures</dt><dd><code>${r.expectedFailures.file}</code></dd>` : ''}
${r.expectedFailures.unexpectedPasses.length ? html`<dt>Unexpected passes</dt><dd>${r.expectedFailures.unexpectedPasses.join(', ')}</dd>` : ''}
${r.expectedFailures.unknown.length ? html`<dt>Unknown expected-failure ids</dt><dd>${r.expectedFailures.unknown.join(', ')}</dd>` : ''}
</dl>
</section>`;
}

function sectionHeading(s: SectionView): string {
  return s.title ? `${s.section} ${s.title}` : `Section ${s.section}`;
}

function sectionsTable(model: ReportModel): Raw {
  const bySpecOrder = [...model.sections].sort((a, b) => compareSections(a.section, b.section));
  return html`<table class="sections">
<caption class="visually-hidden">Spec rows per section and status</caption>
<thead><tr><th scope="col">Section</th>${model.runs.map((r) => html`<th scope="col">${model.runs.length > 1 ? r.label : 'Rows'}</th>`)}</tr></thead>
<tbody>
${bySpecOrder.map((s) => html`<tr><th scope="row"><a href="#sec-${s.rows[0].index}">${sectionHeading(s)}</a></th>
${s.counts.map((counts, i) => html`<td class="counts"${model.runs.length > 1 ? html` data-label="${model.runs[i].label}"` : ''}>${bar(counts, `${sectionHeading(s)}: ${countsText(counts)}`)}${countBadges(counts)}</td>`)}</tr>
`)}
</tbody></table>`;
}

function failureList(model: ReportModel): Raw {
  if (model.failing.length === 0) {
    return html`<p>${badge('passed')} No spec row fails${model.runs.some((r) => r.expectedFailures.length) ? ' (apart from expected failures)' : ''}.</p>`;
  }
  const multi = model.runs.length > 1;
  return html`<ol class="failures">
${model.failing.map((row) => html`<li><a href="#row-${row.index}"><code>${row.id}</code></a> <span class="muted spec-words">${clip(row.spec, 160)}</span>
${row.cells.map((cell, i) => (cell.status === 'failed' ? html`${multi ? html`<span class="on">on ${model.runs[i].label}:</span>` : ''}
${cell.failures.filter((f) => f.check.status === 'failed').map((f) => html`<span class="why">${badge('failed')} <code>${f.check.id}</code>: ${firstLine(f.check.message ?? f.evidence?.message)}</span>`)}` : ''))}
</li>
`)}</ol>`;
}

let copySeq = 0;
function copyable(text: string, what: string, idBase: string): Raw {
  const id = `${idBase}-${copySeq++}`;
  return html`<div class="copyable"><button type="button" class="copy" data-copy="${id}" aria-label="Copy ${what}">Copy</button><pre><code id="${id}">${text}</code></pre></div>`;
}

function headersText(headers: Record<string, string> | undefined): string {
  return Object.entries(headers ?? {}).map(([k, v]) => `${k}: ${v}`).join('\n');
}

function bodyText(body: string | undefined, encoding: 'utf8' | 'base64' | undefined, truncated: boolean | undefined): string {
  if (body === undefined || body === '') return '';
  const note = truncated ? '\n[cut at 4 KB]' : '';
  return encoding === 'base64' ? `[binary, base64]\n${body}${note}` : `${body}${note}`;
}

function exchange(ex: ExchangeEvidence, n: number, last: boolean, idBase: string): Raw {
  const outcome = ex.error ? `error: ${ex.error}` : `${ex.status ?? '?'}`;
  const request = bodyText(ex.requestBody, ex.requestBodyEncoding, false);
  const response = bodyText(ex.responseBody, ex.responseBodyEncoding, ex.truncated);
  // The last exchange is the one the check failed on: open, so its curl line shows at once.
  return html`<li><details class="exchange"${last ? raw(' open') : ''}><summary><code>${ex.method} ${ex.url}</code> → <strong>${outcome}</strong> <span class="muted">(${duration(ex.durationMs)})</span></summary>
<p>Reproduce with curl:</p>${copyable(ex.curl, `curl line of exchange ${n}`, idBase)}
<p>Request headers:</p><pre>${headersText(ex.requestHeaders)}</pre>
${request ? html`<p>Request body:</p><pre>${request}</pre>` : ''}
${ex.status !== undefined ? html`<p>Response ${ex.status}, headers:</p><pre>${headersText(ex.responseHeaders)}</pre>` : ''}
${response ? html`<p>Response body:</p><pre>${response}</pre>` : ''}
${ex.error ? html`<p>Transport error:</p><pre>${ex.error}</pre>` : ''}
</details></li>`;
}

function failureDetails(f: Failure, run: RunView, multi: boolean, idBase: string): Raw {
  const check: CheckResult = f.check;
  const ev = f.evidence;
  const expected = check.status === 'expected-failure';
  const message = check.message ?? ev?.message ?? '(no message)';
  const exchanges = ev?.exchanges ?? [];
  return html`<details class="failure${expected ? ' expected' : ''}"><summary>${expected ? 'Expected failure' : 'Why it fails'}${multi ? ` on ${run.label}` : ''}: <code>${check.id}</code>: ${firstLine(message)}</summary>
<div class="evidence-body">
${check.title ? html`<p>${check.title}</p>` : ''}
<p>Message:</p><pre>${message}</pre>
<dl>
<dt>Check</dt><dd><code>${check.id}</code> (suite ${check.suite}, ${duration(check.durationMs)})</dd>
<dt>Charged to</dt><dd>${(ev?.failedRows?.length ? ev.failedRows : check.rows).join(', ')}</dd>
${ev ? html`<dt>Seed</dt><dd><code>${ev.seed}</code></dd>` : ''}
${ev?.property !== undefined ? html`<dt>Property</dt><dd>${ev.property}</dd>` : ''}
${ev?.path !== undefined ? html`<dt>Path</dt><dd><code>${ev.path}</code></dd>` : ''}
${ev?.counterexample !== undefined ? html`<dt>Counterexample</dt><dd><code>${ev.counterexample}</code></dd>` : ''}
</dl>
${ev ? html`<p>Replay this failure:</p>${copyable(ev.replayCommand, `replay command of ${check.id}`, idBase)}` : html`<p class="muted">No evidence was recorded for this check.</p>`}
${exchanges.length ? html`<p>Exchanges (${exchanges.length}, the last is where it failed):</p>
<ol class="exchanges">${exchanges.map((ex, i) => exchange(ex, i + 1, i === exchanges.length - 1, idBase))}</ol>` : ''}
</div></details>`;
}

function statusCell(cell: Cell, label: string): Raw {
  return html`<td data-label="${label}">${badge(cell.status)}${cell.reason ? html`<span class="reason">${cell.reason}</span>` : ''}</td>`;
}

function rowHtml(row: RowView, model: ReportModel, columns: number): Raw {
  const multi = model.runs.length > 1;
  const statuses = [...new Set(row.cells.map((c) => c.status))].join(' ');
  const failures = row.cells.flatMap((cell, i) => cell.failures.map((f) => ({ f, run: model.runs[i] })));
  return html`<tr class="spec-row" id="row-${row.index}" data-status="${statuses}" data-section="${row.section}">
<th scope="row"><code>${row.id}</code></th>
<td class="spec" data-label="Spec">${row.spec}</td>
${row.cells.map((cell, i) => statusCell(cell, multi ? model.runs[i].label : 'Status'))}
<td data-label="Checks">${row.checks.length ? html`<ul class="checks">${row.checks.map((c) => html`<li><code>${c}</code></li>`)}</ul>` : html`<span class="muted">none</span>`}</td>
</tr>
${failures.length ? html`<tr class="evidence" data-for="row-${row.index}"><td colspan="${columns}">${failures.map(({ f, run }, k) => failureDetails(f, run, multi, `ev-${row.index}-${run.index}-${k}`))}</td></tr>` : ''}`;
}

function sectionHtml(s: SectionView, model: ReportModel): Raw {
  const multi = model.runs.length > 1;
  const columns = 3 + model.runs.length;
  const anchor = `sec-${s.rows[0].index}`;
  return html`<section class="spec-section" data-section="${s.section}" aria-labelledby="${anchor}">
<h3 id="${anchor}">${sectionHeading(s)} <span class="muted">(${s.rows.length} rows)</span></h3>
<table class="rows">
<caption class="visually-hidden">Spec rows of ${sectionHeading(s)}, failures first</caption>
<thead><tr><th scope="col">Row</th><th scope="col">Spec</th>${model.runs.map((r) => html`<th scope="col">${multi ? r.label : 'Status'}</th>`)}<th scope="col">Checks</th></tr></thead>
<tbody>
${s.rows.map((row) => rowHtml(row, model, columns))}
</tbody></table></section>`;
}

function filtersHtml(model: ReportModel): Raw {
  const present = STATUS_ORDER.filter((s) => model.rows.some((r) => r.cells.some((c) => c.status === s)));
  const bySpecOrder = [...model.sections].sort((a, b) => compareSections(a.section, b.section));
  const count = (s: DisplayStatus) => model.rows.filter((r) => r.cells.some((c) => c.status === s)).length;
  // Hidden until the script runs: without it every row is shown and the controls would do nothing.
  return html`<div class="filters" id="filters" role="search" hidden>
<fieldset><legend>Status</legend>
${present.map((s) => html`<label><input type="checkbox" name="status" value="${s}" checked> <span aria-hidden="true">${STATUS_LABELS[s].icon}</span> ${STATUS_LABELS[s].text} (${count(s)})</label>`)}
</fieldset>
<div><label for="section-filter">Section</label><br><select id="section-filter"><option value="">All sections</option>
${bySpecOrder.map((s) => html`<option value="${s.section}">${sectionHeading(s)}</option>`)}</select></div>
<div><label for="search">Search rows and checks</label><br><input type="search" id="search" placeholder="id, words, check" aria-keyshortcuts="/"></div>
<div><button type="button" id="only-failures">Failures only</button> <button type="button" id="show-all">Show all</button></div>
<p id="shown" role="status" aria-live="polite"></p>
</div>`;
}

/** Differential mode: per divergent spec row, the target's answer and the reference's side by side. */
function differentialSection(model: ReportModel): Raw {
  const diff = model.runs[0]?.results.differential;
  if (!diff) return html``;
  const byRow = new Map<string, typeof diff.divergences>();
  for (const d of diff.divergences) for (const r of d.rows) byRow.set(r, [...(byRow.get(r) ?? []), d]);
  const rows = [...byRow].sort(([a], [b]) => (a < b ? -1 : 1));
  const target = model.runs[0].results.run.target;
  return html`<section aria-labelledby="diff-h">
<h2 id="diff-h">Differences from the reference (${rows.length} spec row${rows.length === 1 ? '' : 's'})</h2>
<p class="muted">Target ${target} against the reference ${diff.reference} (${diff.referencePassed ? 'which passed its own run' : 'which failed some checks of its own run'}), same checks and seed. Status codes, Status reasons and answer shapes after normalising server-owned values.</p>
${rows.length === 0 ? html`<p>The two agree on every check.</p>` : html`<table class="diff"><thead><tr><th scope="col">Spec row</th><th scope="col">Check and request</th><th scope="col">Target</th><th scope="col">Reference</th></tr></thead><tbody>
${rows.flatMap(([row, ds]) => ds.map((d, i) => html`<tr>${i === 0 ? html`<th scope="row" rowspan="${String(ds.length)}"><code>${row}</code></th>` : html``}<td><code>${d.checkId}</code>${d.expected ? ' (expected)' : ''}<br>${d.kind}${d.request ? html` <code>${d.request}</code>` : html``}</td><td><pre>${d.target}</pre></td><td><pre>${d.reference}</pre></td></tr>`))}
</tbody></table>`}
</section>`;
}

export function renderHtml(model: ReportModel): string {
  copySeq = 0;
  const multi = model.runs.length > 1;
  const title = multi
    ? `Conformance matrix: ${model.runs.length} targets`
    : `Conformance ${model.runs[0].results.verdict}: ${model.runs[0].label}`;
  // Hashes, not 'unsafe-inline': even a markup injection that slipped past escaping could not run script.
  const csp = `default-src 'none'; style-src 'sha256-${sha256(REPORT_CSS)}'; script-src 'sha256-${sha256(REPORT_JS)}'; img-src data:; base-uri 'none'; form-action 'none'`;
  const failingCount = model.failing.length;
  const body = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="generator" content="cluster-api-conformance suites">
<title>${title}</title>
<style>${raw(REPORT_CSS)}</style>
</head>
<body>
<a class="skip-link" href="#failures-h">Skip to the failing rows</a>
<header>
<h1>${title}</h1>
<p class="muted">Spec rows of the cluster resource API measured against ${multi ? 'each target (columns)' : 'the target'}. Generated from results.json format ${model.runs[0].results.formatVersion}.</p>
</header>
<main>
<section aria-labelledby="summary-h"><h2 id="summary-h" class="visually-hidden">Summary</h2>
<div class="runs">${model.runs.map(runCard)}</div>
</section>
<section aria-labelledby="failures-h">
<h2 id="failures-h">${failingCount ? html`${badge('failed')} ${failingCount} failing spec row${failingCount === 1 ? '' : 's'}` : 'Failing spec rows'}</h2>
${failureList(model)}
</section>
${differentialSection(model)}
<section aria-labelledby="sections-h">
<h2 id="sections-h">Spec sections</h2>
${sectionsTable(model)}
</section>
<section aria-labelledby="rows-h">
<h2 id="rows-h">Spec rows</h2>
<p class="muted">Grouped by section, sections with failures first, failures first within each section. A failing row opens to its evidence: the message, the exchanges with curl lines, the seed and path, and the replay command. Press <kbd>/</kbd> to search.</p>
<noscript><p>Filters and copy buttons need JavaScript; every row is shown.</p></noscript>
${filtersHtml(model)}
<p id="copy-status" class="visually-hidden" role="status" aria-live="polite"></p>
${model.sections.map((s) => sectionHtml(s, model))}
</section>
</main>
<script>${raw(REPORT_JS)}</script>
</body>
</html>
`;
  return body.html;
}

/** The report of one run, or the matrix of several, as the text of index.html. */
export function renderHtmlReport(runs: readonly ConformanceResults[], options: HtmlReportOptions = {}): string {
  return renderHtml(buildReportModel(runs, options.sectionTitles));
}
