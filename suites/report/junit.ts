// junit.xml: one testsuite per suite file, one testcase per check, the spec rows as properties, failures
// with their message and evidence (exchanges, curl lines, replay command). Expected failures are written
// as skipped so CI dashboards stay green while still showing them.
import type { CheckResult, ConformanceResults, FailureEvidence } from './results-schema.ts';

export function escapeXml(text: string): string {
  return (
    text
      // XML 1.0 forbids most control characters even when escaped.
      // eslint-disable-next-line no-control-regex -- XML 1.0 forbids these control characters: they are escaped
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
  );
}

export function renderEvidence(evidence: FailureEvidence): string {
  const lines: string[] = [evidence.message, ''];
  if (evidence.failedRows?.length) lines.push(`spec rows: ${evidence.failedRows.join(', ')}`);
  if (evidence.counterexample) lines.push(`counterexample: ${evidence.counterexample}`);
  lines.push(`seed: ${evidence.seed}${evidence.path ? `  path: ${evidence.path}` : ''}`);
  lines.push(`replay: ${evidence.replayCommand}`, '');
  evidence.exchanges.forEach((x, i) => {
    lines.push(`--- exchange ${i + 1}: ${x.method} ${x.url} -> ${x.status ?? x.error ?? '?'}`);
    for (const [k, v] of Object.entries(x.requestHeaders)) lines.push(`> ${k}: ${v}`);
    if (x.requestBody) lines.push(`> ${x.requestBodyEncoding === 'base64' ? '(base64) ' : ''}${x.requestBody}`);
    if (x.responseHeaders) for (const [k, v] of Object.entries(x.responseHeaders)) lines.push(`< ${k}: ${v}`);
    if (x.responseBody) lines.push(`< ${x.responseBodyEncoding === 'base64' ? '(base64) ' : ''}${x.responseBody}`);
    lines.push(`$ ${x.curl}`);
  });
  return lines.join('\n');
}

function testcase(check: CheckResult): string {
  const seconds = (check.durationMs / 1000).toFixed(3);
  const properties = [`<property name="profile" value="${escapeXml(check.profile)}"/>`, ...check.rows.map((r) => `<property name="spec.row" value="${escapeXml(r)}"/>`)];
  if (check.evidence) properties.push(`<property name="replay" value="${escapeXml(check.evidence.replay)}"/>`);
  const head = `    <testcase classname="${escapeXml(check.suite)}" name="${escapeXml(check.id)}" time="${seconds}">\n      <properties>${properties.join('')}</properties>\n`;
  let body = '';
  const firstLine = (check.message ?? '').split('\n')[0];
  if (check.status === 'failed') {
    const text = check.evidence ? renderEvidence(check.evidence) : (check.message ?? '');
    body = `      <failure message="${escapeXml(firstLine)}" type="ConformanceFailure">${escapeXml(text)}</failure>\n`;
  } else if (check.status === 'expected-failure') {
    body = `      <skipped message="${escapeXml(`expected failure: ${firstLine}`)}"/>\n`;
  } else if (check.status === 'skipped') {
    body = `      <skipped message="${escapeXml(`not verified: ${check.reason ?? 'skipped'}`)}"/>\n`;
  } else if (check.status === 'excluded') {
    body = `      <skipped message="${escapeXml(`excluded (expected-failures file): ${check.reason ?? 'skipped'}`)}"/>\n`;
  }
  return `${head}${body}    </testcase>\n`;
}

export function renderJunit(results: ConformanceResults): string {
  const suites = [...new Set(results.checks.map((c) => c.suite))];
  const parts = ['<?xml version="1.0" encoding="UTF-8"?>\n'];
  const t = results.totals.checks;
  parts.push(
    `<testsuites name="cluster-api-conformance" tests="${t.total}" failures="${t.failed}" skipped="${t.skipped + t.excluded + t.expectedFailures}" time="${(results.run.durationMs / 1000).toFixed(3)}" timestamp="${results.run.startedAt}">\n`,
  );
  for (const suite of suites) {
    const checks = results.checks.filter((c) => c.suite === suite);
    const failures = checks.filter((c) => c.status === 'failed').length;
    const skipped = checks.filter((c) => c.status === 'skipped' || c.status === 'excluded' || c.status === 'expected-failure').length;
    const time = checks.reduce((s, c) => s + c.durationMs, 0) / 1000;
    parts.push(`  <testsuite name="${escapeXml(suite)}" tests="${checks.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${time.toFixed(3)}">\n`);
    parts.push(
      `    <properties><property name="target" value="${escapeXml(results.run.target)}"/><property name="profile" value="${escapeXml(results.run.profile)}"/><property name="verdict" value="${results.verdict}"/><property name="seed" value="${results.run.seed}"/></properties>\n`,
    );
    for (const c of checks) parts.push(testcase(c));
    parts.push('  </testsuite>\n');
  }
  parts.push('</testsuites>\n');
  return parts.join('');
}
