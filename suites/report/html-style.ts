// The report's stylesheet, inlined so index.html opens from disk with no network. Colours meet WCAG AA
// contrast on their backgrounds and always come with an icon and a word; narrow windows get stacked rows;
// print gets black on white with the controls left out.
export const REPORT_CSS = `
:root {
  --fg: #1b1f24; --muted: #57606a; --bg: #fff; --panel: #f6f8fa; --line: #d0d7de; --link: #0550ae;
  --failed: #b3261e; --failed-bg: #fde8e7; --xfail: #8a5300; --xfail-bg: #fff4d6;
  --skipped: #6e5d00; --skipped-bg: #fbf6d9; --uncovered: #57606a; --uncovered-bg: #eef1f4;
  --passed: #116329; --passed-bg: #dcf5e3; --untestable: #57606a; --untestable-bg: #f6f8fa;
  --absent: #57606a; --absent-bg: #fff;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; line-height: 1.45; color: var(--fg); background: var(--bg);
}
@media (prefers-color-scheme: dark) {
  :root {
    --fg: #e6edf3; --muted: #9da7b3; --bg: #0d1117; --panel: #161b22; --line: #30363d; --link: #79b8ff;
    --failed: #ff938a; --failed-bg: #3d1614; --xfail: #f0b45a; --xfail-bg: #3a2a0c; --skipped: #e3cf5c; --skipped-bg: #2e2a0c;
    --uncovered: #b1bac4; --uncovered-bg: #21262d; --passed: #6fdd8b; --passed-bg: #0f2e19; --untestable: #9da7b3; --untestable-bg: #161b22;
    --absent: #9da7b3; --absent-bg: #0d1117;
  }
}
* { box-sizing: border-box; }
body { margin: 0; padding: 0 1rem 3rem; max-width: 100rem; margin-inline: auto; }
a { color: var(--link); }
:focus-visible { outline: 3px solid var(--link); outline-offset: 2px; }
h1 { font-size: 1.5rem; margin: 1rem 0 .25rem; }
h2 { font-size: 1.25rem; margin: 2rem 0 .5rem; border-bottom: 1px solid var(--line); padding-bottom: .25rem; }
h3 { font-size: 1.05rem; margin: 1.25rem 0 .5rem; }
code, pre, kbd { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .875em; }
pre { background: var(--panel); border: 1px solid var(--line); border-radius: 4px; padding: .5rem; margin: .25rem 0;
  white-space: pre-wrap; overflow-wrap: anywhere; max-height: 24rem; overflow: auto; }
.skip-link { position: absolute; left: -100vw; }
.skip-link:focus { left: 1rem; top: .5rem; background: var(--bg); padding: .25rem .5rem; z-index: 1; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.muted { color: var(--muted); }
.verdict { display: inline-block; font-weight: 700; padding: .1rem .6rem; border-radius: 4px; border: 2px solid currentColor; }
.verdict.pass { color: var(--passed); background: var(--passed-bg); }
.verdict.fail { color: var(--failed); background: var(--failed-bg); }
.runs { display: grid; grid-template-columns: repeat(auto-fit, minmax(20rem, 1fr)); gap: 1rem; }
.run { border: 1px solid var(--line); border-radius: 6px; padding: .75rem 1rem; background: var(--panel); min-width: 0; }
.run h3 { margin-top: 0; overflow-wrap: anywhere; }
.run dl { display: grid; grid-template-columns: max-content 1fr; gap: .15rem .75rem; margin: .5rem 0; }
.run dt { color: var(--muted); }
.run dd { margin: 0; overflow-wrap: anywhere; }
.totals { list-style: none; padding: 0; margin: .5rem 0; display: flex; flex-wrap: wrap; gap: .35rem; }
.coverage { font-size: 1.1rem; margin: .5rem 0 .25rem; }
.coverage strong { font-size: 1.6rem; }
.badge { display: inline-block; white-space: nowrap; border-radius: 3px; padding: 0 .4rem; border: 1px solid currentColor; font-size: .875rem; }
.s-failed { color: var(--failed); background: var(--failed-bg); }
.s-expected-failure { color: var(--xfail); background: var(--xfail-bg); }
.s-skipped { color: var(--skipped); background: var(--skipped-bg); }
.s-uncovered { color: var(--uncovered); background: var(--uncovered-bg); }
.s-passed { color: var(--passed); background: var(--passed-bg); }
.s-untestable { color: var(--untestable); background: var(--untestable-bg); }
.s-absent, .s-not-selected, .s-not-applicable { color: var(--absent); background: var(--absent-bg); }
.s-excluded { color: var(--uncovered); background: var(--uncovered-bg); }
.verdict.incomplete { color: var(--skipped); background: var(--skipped-bg); }
svg.bar { width: 100%; max-width: 24rem; height: .9rem; display: block; border: 1px solid var(--line); }
svg.bar rect.failed { fill: var(--failed); } svg.bar rect.expected-failure { fill: var(--xfail); }
svg.bar rect.skipped { fill: var(--skipped); } svg.bar rect.uncovered { fill: var(--uncovered-bg); }
svg.bar rect.excluded { fill: var(--uncovered); } svg.bar rect.passed { fill: var(--passed); } svg.bar rect.untestable, svg.bar rect.absent { fill: var(--panel); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: .35rem .5rem; border-bottom: 1px solid var(--line); }
thead th { background: var(--panel); font-weight: 600; }
.sections td.counts { font-size: .85rem; }
.failures { padding-left: 1.25rem; }
.failures li { margin: .5rem 0; overflow-wrap: anywhere; }
.failures .why, .failures .spec-words { display: block; overflow-wrap: anywhere; }
.failures .on { display: block; font-weight: 600; margin-top: .15rem; }
.filters { display: flex; flex-wrap: wrap; gap: .75rem 1.5rem; align-items: end; padding: .75rem; background: var(--panel);
  border: 1px solid var(--line); border-radius: 6px; }
.filters[hidden] { display: none; }
.filters fieldset { border: 0; padding: 0; margin: 0; display: flex; flex-wrap: wrap; gap: .25rem .75rem; }
.filters legend { font-weight: 600; padding: 0; margin-bottom: .25rem; }
.filters label { white-space: nowrap; }
.filters input[type=search], .filters select { font: inherit; padding: .2rem .35rem; min-width: 12rem; max-width: 100%; }
button { font: inherit; cursor: pointer; padding: .15rem .6rem; border: 1px solid var(--line); border-radius: 4px; background: var(--bg); color: var(--fg); }
button:hover { border-color: var(--link); }
#shown { font-weight: 600; }
.spec-section[hidden], tr[hidden] { display: none; }
table.rows th[scope=row] code { overflow-wrap: anywhere; }
table.rows td.spec { max-width: 40rem; }
table.rows .reason { display: block; color: var(--muted); font-size: .85rem; }
table.rows tr.evidence > td { background: var(--bg); padding-top: 0; }
.checks { margin: 0; padding: 0; list-style: none; }
.checks code { overflow-wrap: anywhere; }
details > summary { cursor: pointer; padding: .2rem 0; }
details.failure > summary { color: var(--failed); font-weight: 600; overflow-wrap: anywhere; }
details.failure.expected > summary { color: var(--xfail); }
.evidence-body { border-left: 3px solid var(--failed); padding-left: .75rem; margin: .25rem 0 .75rem; }
.evidence-body dl { display: grid; grid-template-columns: max-content 1fr; gap: .15rem .75rem; margin: .25rem 0; }
.evidence-body dt { color: var(--muted); }
.evidence-body dd { margin: 0; overflow-wrap: anywhere; }
.copyable { position: relative; }
.copyable .copy { float: right; margin: 0 0 .25rem .5rem; }
.exchanges { padding-left: 1.25rem; }
.exchange > summary code { overflow-wrap: anywhere; }
@media (max-width: 48rem) {
  body { padding: 0 .5rem 2rem; }
  .runs { grid-template-columns: 1fr; }
  .run dl, .evidence-body dl { grid-template-columns: 1fr; }
  /* Tables become one block per row, each cell saying which column it was. */
  table.rows thead, table.sections thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  table.rows, table.rows tbody, table.rows tr, table.rows th, table.rows td,
  table.sections, table.sections tbody, table.sections tr, table.sections th, table.sections td { display: block; width: 100%; }
  table.rows tr.spec-row, table.sections tr { border-top: 2px solid var(--line); padding-top: .25rem; }
  table.rows td, table.rows th, table.sections td, table.sections th { border: 0; padding: .15rem .25rem; overflow-wrap: anywhere; }
  td[data-label]::before { content: attr(data-label) ": "; font-weight: 600; color: var(--muted); }
  .filters input[type=search], .filters select { min-width: 0; width: 100%; }
}
@media print {
  :root { --fg: #000; --bg: #fff; --panel: #fff; --muted: #333; }
  body { max-width: none; padding: 0; font-size: 10pt; }
  .filters, .copy, .skip-link, noscript { display: none !important; }
  a { color: inherit; text-decoration: none; }
  pre { max-height: none; overflow: visible; border-color: #999; }
  tr, .run, li { break-inside: avoid; }
  h2, h3 { break-after: avoid; }
  .badge { border-color: #000; }
}
`;
