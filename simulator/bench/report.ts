// The bench's one table: every figure with its goal, its value and whether it met it, printed at the end of
// `npm run bench`, written to reports/bench.json, and drawn in reports/bench.html with a small chart (plain
// SVG, no script) for each figure that reports how its cost grows with the work.

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Measurement, Point } from './measurement.ts';

export interface BenchRow extends Measurement {
  bench: string;
}

export interface BenchReport {
  startedAt: string;
  machine: { cpus: number; node: string; platform: string };
  /** The machine's load average (1, 5, 15 min) when the run started and when it ended: how shared the cores were. */
  load?: { start: number[]; end: number[] };
  rows: BenchRow[];
  errors: { bench: string; message: string }[];
}

const num = (v: number) => (Number.isFinite(v) ? (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(2)) : String(v));

/** A ratio's two sides as text: "812 vs 1,004 req/s (bare Fastify)". */
const sidesText = (r: BenchRow) => (r.sides ? `${num(r.sides.measured)} vs ${num(r.sides.reference)} ${r.sides.unit} (${r.sides.referenceLabel})` : '');

export function table(report: BenchReport): string {
  const head = ['', 'bench', 'figure', 'value', 'goal', 'measured vs reference'];
  const rows = report.rows.map((r) => [r.ok ? 'PASS' : 'FAIL', r.bench, r.name, `${num(r.value)} ${r.unit}`, r.target, sidesText(r)]);
  const widths = head.map((h, i) => Math.min(i === 2 ? 90 : i === 5 ? 60 : 40, Math.max(h.length, ...rows.map((r) => r[i].length))));
  const cut = (s: string, w: number) => (s.length > w ? s.slice(0, w - 1) + '…' : s.padEnd(w));
  return [head, ...rows].map((r) => r.map((c, i) => cut(c, widths[i])).join('  ').trimEnd()).join('\n');
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A small line chart of one series in SVG, with the reference's series beside it when there is one (dashed, grey):
 * axes from 0 with their extremes, points joined in x order, a legend. Plain SVG written here: no charting package is
 * among the project's dependencies, and the page has to open from a file without scripts.
 */
function chart(r: BenchRow): string {
  const s = r.series!;
  const sorted = (ps: Point[]) => [...ps].sort((a, b) => a.x - b.x);
  const pts = sorted(s.points);
  const ref = sorted(s.reference ?? []);
  if (pts.length === 0) return '';
  const W = 360;
  const H = 180;
  const P = 40;
  const all = [...pts, ...ref];
  const xs = all.map((p) => p.x);
  const ys = all.map((p) => p.y);
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  const [y0, y1] = [Math.min(0, ...ys), Math.max(...ys)];
  const sx = (x: number) => P + ((x - x0) / (x1 - x0 || 1)) * (W - 2 * P);
  const sy = (y: number) => H - P + 10 - ((y - y0) / (y1 - y0 || 1)) * (H - 2 * P);
  const line = (ps: Point[], cls: string, label: string) =>
    `<path d="${ps.map((p, i) => `${i ? 'L' : 'M'}${sx(p.x).toFixed(1)},${sy(p.y).toFixed(1)}`).join(' ')}" class="${cls}"/>` +
    ps.map((p) => `<circle cx="${sx(p.x).toFixed(1)}" cy="${sy(p.y).toFixed(1)}" r="3" class="${cls}"><title>${esc(`${label}, ${s.xLabel} ${num(p.x)}: ${num(p.y)} ${s.yLabel}`)}</title></circle>`).join('');
  const refLabel = s.referenceLabel ?? 'reference';
  const legend = ref.length
    ? `<g class="legend"><line x1="${W - P - 120}" y1="12" x2="${W - P - 105}" y2="12" class="line"/><text x="${W - P - 100}" y="15">measured</text>` +
      `<line x1="${W - P - 120}" y1="26" x2="${W - P - 105}" y2="26" class="ref"/><text x="${W - P - 100}" y="29">${esc(refLabel)}</text></g>`
    : '';
  return `<svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(`${r.name}: ${s.yLabel} over ${s.xLabel}${ref.length ? `, beside ${refLabel}` : ''}`)}">
<line x1="${P}" y1="${H - P + 10}" x2="${W - P}" y2="${H - P + 10}" class="axis"/><line x1="${P}" y1="${P - 10}" x2="${P}" y2="${H - P + 10}" class="axis"/>
<text x="${P}" y="${H - 4}">${esc(num(x0))}</text><text x="${W - P}" y="${H - 4}" text-anchor="end">${esc(num(x1))} ${esc(s.xLabel)}</text>
<text x="${P - 4}" y="${P - 14}" text-anchor="start">${esc(num(y1))} ${esc(s.yLabel)}</text>
${ref.length ? line(ref, 'ref', refLabel) : ''}${line(pts, 'line', 'measured')}${legend}</svg>`;
}

export function html(report: BenchReport): string {
  const rows = report.rows
    .map((r) => `<tr class="${r.ok ? 'pass' : 'fail'}"><td>${r.ok ? 'PASS' : 'FAIL'}</td><td>${esc(r.bench)}</td><td>${esc(r.name)}${r.series ? `<div>${chart(r)}</div>` : ''}</td><td class="n">${esc(num(r.value))} ${esc(r.unit)}</td><td>${esc(r.target)}</td><td>${esc(sidesText(r))}</td></tr>`)
    .join('\n');
  const errors = report.errors.map((e) => `<li><b>${esc(e.bench)}</b>: ${esc(e.message)}</li>`).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Benchmarks</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<style>body{font:14px system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.4em;text-align:left;vertical-align:top}
.n{text-align:right;white-space:nowrap}.pass td:first-child{color:#186a1f}.fail td:first-child{color:#b00020;font-weight:bold}
svg{margin-top:.4em}svg text{font-size:10px;fill:#555}.axis{stroke:#999}.line{fill:none;stroke:#1f5fbf;stroke-width:2}circle.line{fill:#1f5fbf}.ref{fill:none;stroke:#888;stroke-width:2;stroke-dasharray:5 3}circle.ref{fill:#888;stroke:none}</style></head>
<body><h1>Benchmarks</h1><p>${esc(report.startedAt)} · ${report.machine.cpus} cores · node ${esc(report.machine.node)} · ${report.rows.filter((r) => r.ok).length}/${report.rows.length} goals met${report.load ? ` · load average ${esc(report.load.start.map((x) => x.toFixed(1)).join(' '))} at the start, ${esc(report.load.end.map((x) => x.toFixed(1)).join(' '))} at the end` : ''}</p>
${errors ? `<h2>Errors</h2><ul>${errors}</ul>` : ''}
<table><thead><tr><th></th><th>bench</th><th>figure</th><th>value</th><th>goal</th><th>measured vs reference</th></tr></thead><tbody>
${rows}
</tbody></table></body></html>
`;
}

export function writeReport(report: BenchReport, jsonPath: string, htmlPath: string): void {
  mkdirSync(dirname(jsonPath), { recursive: true });
  writeFileSync(jsonPath, JSON.stringify(report, null, 2) + '\n');
  writeFileSync(htmlPath, html(report));
}
