// Cross-checks of the prose-derived tables against the spec markdown: every quote is verbatim,
// and every numbered item and table row of a section has at least one row.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSpecTables, type SpecRow } from './index.ts';
import { numberedItems, readSpecMarkdown, sectionText, tableRows } from './spec-markdown.ts';

const md = readSpecMarkdown();
const t = loadSpecTables({ vendor: 'kubernetes' });

/** Table lines lose their outer pipes so a row quoted as "a | b" is found verbatim. */
function flatten(text: string): string {
  return text.split('\n').map((l) => (l.startsWith('| ') ? l.slice(2).replace(/ \|$/, '') : l)).join('\n').replaceAll('{vendor}', 'kubernetes');
}
const flatSpec = flatten(md);

/** A row's spec is one or more verbatim quotes joined by " ... ". */
function quotes(row: SpecRow): string[] {
  return row.spec.split(' ... ').map((q) => q.trim()).filter(Boolean);
}

// Rows whose spec is a paraphrase of a table line rather than a quote (the endpoint tables of 4.4,
// 4.5 and 4.9 only list paths; their rows say which table they came from in words).
const PARAPHRASED = new Set(['4.4', '4.5', '4.9']);

test('every quoted spec text is found verbatim in the spec', () => {
  const misses = t.all
    .filter((r) => !(r.table === 'endpoints' && PARAPHRASED.has(r.section)))
    .flatMap((r) => quotes(r).filter((q) => !flatSpec.includes(q)).map((q) => `${r.id}: ${q}`));
  assert.deepEqual(misses, []);
});

function coveredBy(rows: readonly SpecRow[], text: string): boolean {
  const flat = flatten(text);
  return rows.some((r) => quotes(r).some((q) => flat.includes(q.replace(/^\d+\. /, ''))));
}

const statementRows = [...t.rules, ...t.versioning, ...t.authentication, ...t.errors];

test('every numbered item of sections 1, 4.3, 4.10, 5, 6 and 9 has a row', () => {
  for (const section of ['1', '4.3', '4.10', '5', '6', '9']) {
    const rows = statementRows.filter((r) => r.section === section);
    const items = numberedItems(sectionText(md, section));
    assert.ok(items.length >= 3, `section ${section} has items`);
    items.forEach((item, i) => assert.ok(coveredBy(rows, item), `section ${section} item ${i + 1} has no row: ${item.slice(0, 60)}`));
  }
});

test('every row of the life-cycle table (3) has a rule', () => {
  const rows = t.rules.filter((r) => r.section === '3');
  for (const cells of tableRows(sectionText(md, '3'))) assert.ok(coveredBy(rows, cells.join(' | ')), cells[0]);
});

test('the 4.1 media types and negotiation table are rows', () => {
  const text = sectionText(md, '4.1').replaceAll('{vendor}', 'kubernetes');
  const named = new Set(text.match(/application\/[a-z0-9.+-]*[a-z0-9+](;stream=watch)?/g));
  assert.deepEqual([...named].sort(), t.mediaTypes.map((m) => m.mediaType).sort());
  assert.equal(t.mediaTypes.filter((m) => m.isDefault).map((m) => m.mediaType).join(), 'application/json');
  const negotiation = tableRows(text);
  assert.deepEqual(negotiation.map(([rule]) => rule), t.negotiation.map((n) => n.rule));
  assert.equal(t.negotiation.find((n) => n.rule === 'Unsupported type')?.statusCode, 406);
  for (const bullet of text.split('\n').filter((l) => l.startsWith('- '))) {
    assert.ok(coveredBy(t.rules.filter((r) => r.section === '4.1'), bullet), bullet.slice(0, 60));
  }
  assert.equal(loadSpecTables({ vendor: 'acme' }).byId('media.protobuf') && loadSpecTables({ vendor: 'acme' }).mediaTypes.find((m) => m.id === 'media.protobuf')?.mediaType, 'application/vnd.acme.protobuf');
});

test('the 4.2 query parameters are rows with their types', () => {
  const text = sectionText(md, '4.2');
  for (const [name, type, meaning] of tableRows(text)) {
    const row = t.queryParameters.find((q) => q.id === `query.list.${name}`);
    assert.ok(row, name);
    assert.equal(row.type, type.split(' ')[0], name);
    assert.equal(row.format, type.includes('int32') ? 'int32' : null, name);
    assert.deepEqual(row.appliesTo, ['list', 'watch', 'deletecollection']);
    assert.ok(meaning.startsWith(row.meaning.split('.')[0]), name);
  }
  const families: Array<[string, string[], string]> = [
    ['get', ['pretty', 'export', 'exact'], 'Get-by-name endpoints accept'],
    ['delete', ['pretty', 'gracePeriodSeconds', 'orphanDependents', 'propagationPolicy'], 'Delete-by-name endpoints take'],
    ['create', ['pretty'], 'Create (POST) takes'],
    ['single', ['pretty'], 'Other single-object endpoints'],
  ];
  for (const [family, names, sentence] of families) {
    assert.ok(text.includes(sentence), 'text.includes(sentence)');
    assert.deepEqual(t.queryParameters.filter((q) => q.id.startsWith(`query.${family}.`)).map((q) => q.name), names, family);
  }
  const grace = t.queryParameters.find((q) => q.id === 'query.delete.gracePeriodSeconds')!;
  assert.equal(grace.format, 'int32');
  assert.equal(grace.minimum, 0);
  assert.deepEqual(t.queryParameters.find((q) => q.id === 'query.delete.propagationPolicy')?.enum, ['Orphan', 'Background', 'Foreground']);
  assert.deepEqual(t.queryParameters.find((q) => q.id === 'query.list.limit')?.notWith, ['watch']);
});

test('section 7 errors, 8.1 limits and the 2.1 body types are rows', () => {
  for (const [status] of tableRows(sectionText(md, '7'))) {
    const code = /^\d{3}/.exec(status)?.[0];
    assert.ok(t.errors.some((e) => (code ? e.code === Number(code) : e.spec.startsWith(status))), status);
  }
  assert.deepEqual(t.errors.find((e) => e.id === 'error.delete-success-body')?.body, { kind: 'Status', status: 'Success', code: 200 });
  assert.deepEqual(t.errors.find((e) => e.id === 'error.410')?.names, ['Gone', 'ResourceExpired']);
  const limits = tableRows(sectionText(md, '8.1'));
  assert.deepEqual(limits.map(([item]) => item), t.limits.filter((l) => l.limit !== 'not shown').map((l) => l.item));
  assert.equal(t.byId('limit.continue-token-lifetime') && t.limits.find((l) => l.id === 'limit.continue-token-lifetime')?.value, '5m0s');
  assert.deepEqual(t.limits.find((l) => l.id === 'limit.termination-message')?.values, { perContainerBytes: 4096, totalBytes: 12288 });
  const bodies = tableRows(sectionText(md, '2.1')).filter((r) => r.length === 2).map(([name]) => name);
  assert.deepEqual(bodies, t.bodyTypes.map((b) => b.name));
});

test('the limits agree with the field defaults they restate', () => {
  for (const limit of t.limits.filter((l) => /default/i.test(l.limit))) {
    for (const ref of limit.refs ?? []) {
      const field = t.fields.find((f) => f.id === ref);
      if (!field) continue;
      const expected = limit.values?.[field.name] ?? limit.value;
      assert.deepEqual(field.default, expected, `${limit.id} vs ${ref}`);
    }
  }
});

test('section 9 names the groups the endpoint table serves', () => {
  const groupVersions = t.versioning.find((v) => v.id === 'version.groups-in-use')?.groupVersions ?? [];
  const served = new Set(t.endpoints.filter((e) => e.group !== '').map((e) => `${e.group}/${e.version}`));
  assert.deepEqual([...served].sort(), [...groupVersions].sort());
});

test('untestable rows say why, and "not shown" items are all untestable', () => {
  for (const r of t.all) {
    if (quotes(r).every((q) => /not shown\.?$/.test(q))) assert.equal(r.testable, false, r.id);
    if (!r.testable) assert.ok(r.reason && r.reason.length > 10, r.id);
  }
  const notShownSentences = md.split(/\n|(?<=\.) /).filter((s) => /: not shown\.?$/.test(s.trim()));
  for (const sentence of notShownSentences) {
    assert.ok(t.all.some((r) => !r.testable && quotes(r).some((q) => flatten(sentence).includes(q) || q.includes(flatten(sentence).trim()))), sentence);
  }
});
