import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SPEC_TABLES_DIR, SpecTableError, expandPrefix, fieldRow, loadSpecTables, optionByName } from './index.ts';
import { readSpecMarkdown, sectionText, tableRows } from './spec-markdown.ts';

const md = readSpecMarkdown();
const t = loadSpecTables();

/** A throw-away copy of the tables with one file's text changed by `edit`. */
function withBrokenCopy(file: string, edit: (text: string) => string, fn: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'spec-tables-'));
  try {
    cpSync(SPEC_TABLES_DIR, dir, { recursive: true, filter: (src) => !src.endsWith('.ts') });
    const path = join(dir, file);
    const before = readFileSync(path, 'utf8');
    const after = edit(before);
    assert.notEqual(after, before, 'the edit must change the file');
    writeFileSync(path, after);
    fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function loadError(dir: string): SpecTableError {
  try {
    loadSpecTables({ dir });
  } catch (e) {
    assert.ok(e instanceof SpecTableError, `expected SpecTableError, got ${e}`);
    return e;
  }
  assert.fail('a broken table was accepted');
}

test('every table loads and every row has the shared columns', () => {
  assert.ok(t.all.length > 300, 't.all.length > 300');
  for (const row of t.all) {
    assert.match(row.id, /^[a-z][A-Za-z]*\./);
    assert.match(row.section, /^\d+(\.\d+)*$/);
    assert.ok(row.spec.length > 0, row.id);
    assert.equal(typeof row.testable, 'boolean', row.id);
    if (!row.testable) assert.ok(row.reason, `${row.id} is untestable without a reason`);
  }
});

test('ids are unique across all files', () => {
  const seen = new Map<string, string>();
  for (const row of t.all) {
    assert.ok(!seen.has(row.id), `${row.id} in ${row.file} and ${seen.get(row.id)}`);
    seen.set(row.id, row.file);
  }
  assert.equal(t.byId('option.x-api-qps')?.table, 'options');
  assert.equal(t.byId('no.such.row'), undefined);
});

test('counts match the spec: 79 options, 37 gates, 30 controllers with 2 off by default', () => {
  assert.equal(t.options.length, 79);
  assert.equal(t.featureGates.length, 37);
  assert.equal(t.controllers.length, 30);
  assert.deepEqual(t.controllers.filter((c) => !c.enabledByDefault).map((c) => c.name).sort(), ['bootstrapsigner', 'tokencleaner']);
});

test('every option row of 8.2 is in the table with its exact type and default words', () => {
  const rows = tableRows(sectionText(md, '8.2'));
  assert.equal(rows.length, t.options.length);
  for (const [name, type, defaultText, purpose] of rows) {
    const o = optionByName(name);
    assert.ok(o, `option ${name} missing`);
    assert.equal(o.type, type, name);
    assert.equal(o.defaultText, defaultText.replaceAll('{vendor}', 'kubernetes'), name);
    assert.equal(o.purpose, purpose.replaceAll('{vendor}', 'kubernetes'), name);
    assert.equal(o.id, `option.${name.replace(/^-+/, '')}`);
  }
});

test('option defaults are machine values of the option type', () => {
  const expectations: Array<[string, unknown]> = [
    ['--port', 10252], ['--address', '0.0.0.0'], ['--allocate-node-cidrs', false], ['--configure-cloud-routes', true],
    ['--attach-detach-reconcile-sync-period', '1m0s'], ['--experimental-cluster-signing-duration', '8760h0m0s'],
    ['--controllers', ['*']], ['--feature-gates', null], ['--controller-start-interval', null], ['--cloud-config', null],
    ['--cidr-allocator-type', 'RangeAllocator'], ['--cluster-name', 'kubernetes'], ['--x-api-qps', 20],
    ['--horizontal-pod-autoscaler-tolerance', 0.1], ['--unhealthy-zone-threshold', 0.55], ['--version', null],
    ['--x-api-content-type', 'application/vnd.kubernetes.protobuf'], ['--cluster-signing-cert-file', '/etc/kubernetes/ca/ca.pem'],
  ];
  for (const [name, value] of expectations) assert.deepEqual(optionByName(name)?.default, value, name);
  for (const o of t.options) {
    if (o.default === null) continue;
    const expected = { int32: 'number', float: 'number', float32: 'number', flag: 'boolean', duration: 'string', string: 'string', ip: 'string' }[o.type as string];
    if (expected) assert.equal(typeof o.default, expected, o.name);
    if (o.type === 'flag') assert.equal(o.default, o.defaultText === 'true', o.name);
  }
  assert.equal(optionByName('x-api-qps')?.name, '--x-api-qps');
  assert.equal(optionByName('--no-such-option'), undefined);
});

test('cross-option constraints are recorded', () => {
  assert.equal(optionByName('--cluster-cidr')?.constraints[0]?.requires, '--allocate-node-cidrs');
  assert.equal(optionByName('--service-cluster-ip-range')?.constraints[0]?.requires, '--allocate-node-cidrs');
  assert.equal(optionByName('--leader-elect-renew-deadline')?.constraints[0]?.atMost, '--leader-elect-lease-duration');
  assert.equal(optionByName('--attach-detach-reconcile-sync-period')?.constraints[0]?.greaterThan, '1s');
  assert.deepEqual(optionByName('--leader-elect-resource-lock')?.enum, ['endpoints', 'configmaps']);
});

test('controllers and feature gates match the 8.2 prose', () => {
  const m = /Controllers that can be named in --controllers: ([^.]+)\. Off by default: ([^.]+)\./.exec(md);
  assert.ok(m, 'm');
  const names = m[1].split(', ');
  const off = m[2].split(', ');
  assert.deepEqual(t.controllers.map((c) => c.name), names);
  for (const c of t.controllers) assert.equal(c.enabledByDefault, !off.includes(c.name), c.name);
  const gatesText = /Feature gates \(true\|false; stage and default\): (.+)\./.exec(md)?.[1];
  assert.ok(gatesText, 'gatesText');
  const gates = [...gatesText.matchAll(/(\w+) \(([^)]*)\)/g)];
  assert.equal(gates.length, t.featureGates.length);
  for (const [, name, inner] of gates) {
    const parts = inner.split(', ');
    const row = t.byId(`gate.${name}`);
    assert.ok(row && row.table === 'featureGates', name);
    const g = t.featureGates.find((x) => x.name === name)!;
    assert.equal(g.stage, parts.length === 2 ? parts[0] : null, name);
    assert.equal(g.default, parts[parts.length - 1] === 'true', name);
  }
  assert.equal(t.featureGates.find((g) => g.name === 'AllowExtTrafficLocalEndpoints')?.stage, null);
});

test('prefixes expand as the notation table says', () => {
  const rows = tableRows(md.slice(0, md.indexOf('## 1.')));
  assert.equal(rows.length, t.prefixes.length);
  for (const [prefix, path] of rows) assert.equal(expandPrefix(prefix), path);
  assert.equal(expandPrefix('CORE/namespaces/<namespace>/configmaps/<name>'), '/api/v1/namespaces/{namespace}/configmaps/{name}');
  assert.throws(() => expandPrefix('NOPE/things'), /unknown path prefix "NOPE"/);
});

const SINGLE_VERB = { GET: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' } as const;

test('every endpoint of 4.4-4.9 is a row, and there are exactly 112', () => {
  const find = (method: string, specPath: string) => t.endpoints.filter((e) => e.method === method && e.specPath === specPath);
  const expected: Array<[string, string, string]> = [];
  for (const [method, path] of tableRows(sectionText(md, '4.4'))) expected.push(['4.4', method, path]);
  for (const [path] of tableRows(sectionText(md, '4.5'))) expected.push(['4.5', 'GET', path]);
  for (const [method, path] of tableRows(sectionText(md, '4.6'))) expected.push(['4.6', method, path]);
  for (const [path, verbs] of tableRows(sectionText(md, '4.7'))) for (const v of verbs.split(', ')) expected.push(['4.7', v, path]);
  for (const [path] of tableRows(sectionText(md, '4.9'))) expected.push(['4.9', 'GET', path]);
  for (const [section, method, path] of expected) {
    const rows = find(method, path).filter((e) => e.section === section);
    assert.equal(rows.length, 1, `${section} ${method} ${path}`);
    assert.equal(rows[0].path, expandPrefix(path));
  }
  // 4.8 is prose: status GET/PUT/PATCH for 6 kinds + Ingress PUT/PATCH, scale for 2 kinds, finalize.
  const subresourceRows = t.endpoints.filter((e) => e.section === '4.8');
  assert.equal(subresourceRows.length, 6 * 3 + 2 + 2 * 3 + 1);
  assert.equal(t.endpoints.length, expected.length + subresourceRows.length);
  assert.equal(t.endpoints.length, 112);
});

test('endpoint rows carry verbs, scopes, bodies and codes as the spec gives them', () => {
  for (const e of t.endpoints.filter((x) => x.section === '4.7')) {
    assert.equal(e.verb, SINGLE_VERB[e.method as keyof typeof SINGLE_VERB], e.id);
    assert.deepEqual(e.responseCodes, e.method === 'PUT' ? [200, 201] : [200], e.id);
    if (e.method === 'DELETE') assert.equal(e.bodyType, 'DeleteOptions');
  }
  for (const [method, path, body, response] of tableRows(sectionText(md, '4.6'))) {
    const e = t.endpoints.find((x) => x.method === method && x.specPath === path)!;
    assert.deepEqual(e.responseCodes, response.match(/\d{3}/g)!.map(Number), e.id);
    assert.equal(e.bodyType, body === 'none' ? null : body, e.id);
  }
  const watchPaths = tableRows(sectionText(md, '4.9')).map(([p]) => expandPrefix(p)).sort();
  assert.deepEqual(t.endpoints.filter((e) => e.verb === 'watch').map((e) => e.path).sort(), watchPaths);
  assert.equal(t.byId('endpoint.core.configmaps.namespaced.create')?.table, 'endpoints');
  const finalize = t.endpoints.find((e) => e.subresource === 'finalize')!;
  assert.equal(finalize.path, '/api/v1/namespaces/{name}/finalize');
  assert.equal(finalize.scope, 'cluster-scoped');
  const scale = t.endpoints.find((e) => e.id === 'endpoint.ext.replicasets.scale.namespaced.get')!;
  assert.equal(scale.responseType, 'Scale');
  assert.equal(scale.responseApiVersion, 'extensions/v1beta1');
  // 4.7 writes "DaemonSet (v1beta1)" and "ReplicaSet (v1beta1)" for the EXT objects.
  for (const [path, , type] of tableRows(sectionText(md, '4.7')).filter(([, , type]) => type.includes('(v1beta1)'))) {
    for (const e of t.endpoints.filter((x) => x.specPath === path && x.method !== 'DELETE')) assert.equal(e.responseApiVersion, 'extensions/v1beta1', `${e.id} (${type})`);
  }
  for (const e of t.endpoints) {
    assert.deepEqual(e.pathParams, [...e.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]), e.id);
    assert.equal(e.scope === 'namespaced', e.path.includes('{namespace}'), e.id);
  }
});

test('every field of the 2.2-2.5 tables is a row with its type, default and updatability', () => {
  const owners: Array<[string, string]> = [['2.2', 'Container'], ['2.3', 'CronJobSpec'], ['2.5', 'JobSpec']];
  for (const [section, type] of owners) {
    for (const [name, jsonType, rule] of tableRows(sectionText(md, section))) {
      const f = fieldRow(type, name);
      assert.ok(f, `${type}.${name}`);
      assert.equal(f.jsonType, jsonType, `${type}.${name}`);
      assert.equal(f.updatable, !rule.includes('Not updatable'), `${type}.${name}`);
      if (/Default [^;.]+|\(default\)/.test(rule)) assert.ok(f.default !== null || f.defaultRule !== null, `${type}.${name} has a default`);
    }
  }
  const deployment = sectionText(md, '2.4');
  const [specTable, statusTable] = deployment.split('| DeploymentStatus field').map(tableRows);
  for (const [name, jsonType] of specTable.filter((r) => r.length === 3)) assert.equal(fieldRow('DeploymentSpec', name)?.jsonType, jsonType, name);
  for (const [name, jsonType] of statusTable.filter((r) => r.length === 3)) assert.equal(fieldRow('DeploymentStatus', name)?.jsonType, jsonType, name);
  const expectedDefaults: Array<[string, string, unknown]> = [
    ['DeploymentSpec', 'replicas', 1], ['DeploymentSpec', 'revisionHistoryLimit', 10], ['DeploymentSpec', 'progressDeadlineSeconds', 600],
    ['DeploymentSpec', 'minReadySeconds', 0], ['RollingUpdateDeployment', 'maxSurge', '25%'], ['RollingUpdateDeployment', 'maxUnavailable', '25%'],
    ['DeploymentStrategy', 'type', 'RollingUpdate'], ['JobSpec', 'backoffLimit', 6], ['CronJobSpec', 'successfulJobsHistoryLimit', 3],
    ['CronJobSpec', 'failedJobsHistoryLimit', 1], ['CronJobSpec', 'concurrencyPolicy', 'Allow'], ['CronJobSpec', 'suspend', false],
    ['Container', 'terminationMessagePath', '/dev/termination-log'], ['Container', 'terminationMessagePolicy', 'File'], ['Container', 'stdin', false],
  ];
  for (const [type, name, value] of expectedDefaults) assert.deepEqual(fieldRow(type, name)?.default, value, `${type}.${name}`);
  assert.equal(fieldRow('Container', 'imagePullPolicy')?.defaultRule, 'image-tag');
  assert.equal(t.byId('defaultRule.image-tag')?.table, 'defaultRules');
  assert.equal(fieldRow('Container', 'env')?.patchMergeKey, 'name');
  assert.equal(fieldRow('DeploymentStatus', 'conditions')?.patchMergeKey, 'type');
  assert.equal(fieldRow('Unknown', 'contentType')?.protobufField, 4);
  assert.equal(fieldRow('TypeMeta', 'kind')?.protobufField, 2);
  assert.equal(fieldRow('DeploymentSpec', 'revisionHistoryLimit')?.jsonPath, 'spec.revisionHistoryLimit');
  assert.equal(fieldRow('Nope', 'nope'), undefined);
  // Protobuf field numbers come from 2.6 only; other numbers are wire facts, not spec.
  assert.deepEqual(t.fields.filter((f) => f.protobufField !== null).map((f) => f.section), Array(6).fill('2.6'));
  assert.ok(t.fields.filter((f) => f.section === '2.6').every((f) => f.protobufField !== null), "t.fields.filter((f) => f.section === '2.6').every((f) => f.protobufField !== null)");
});

test('a broken row is rejected naming the file, the row id and the field', () => {
  withBrokenCopy('daemon-options.yaml', (y) => y.replace('default: 10252', 'default: "ten thousand"'), (dir) => {
    const e = loadError(dir);
    assert.match(e.message, /daemon-options\.yaml: row "option\.port": \/default must be integer/);
    assert.equal(e.row?.id, 'option.port');
    assert.equal(e.field, '/default');
  });
  withBrokenCopy('endpoints.yaml', (y) => y.replace(/(id: endpoint\.core\.configmaps\.namespaced\.create\n(?:.*\n)*? {4})verb: "create"/, '$1verb: "make"'), (dir) => {
    assert.match(loadError(dir).message, /endpoints\.yaml: row "endpoint\.core\.configmaps\.namespaced\.create": \/verb must be equal to one of the allowed values/);
  });
  withBrokenCopy('controllers.yaml', (y) => y.replace('    enabledByDefault: false\n', ''), (dir) => {
    assert.match(loadError(dir).message, /controllers\.yaml: row "controller\.bootstrapsigner": \/enabledByDefault is required/);
  });
  withBrokenCopy('feature-gates.yaml', (y) => y.replace('  - id: gate.APIListChunking\n', '  - id: 42\n'), (dir) => {
    assert.match(loadError(dir).message, /feature-gates\.yaml: row featureGates\[0\]: \/id must be string/);
  });
});

test('cross-row checks reject duplicate ids, mismatched names and dangling references', () => {
  withBrokenCopy('controllers.yaml', (y) => y.replace('id: controller.cronjob', 'id: controller.attachdetach'), (dir) => {
    assert.match(loadError(dir).message, /controllers\.yaml: row "controller\.attachdetach": \/id (duplicates|must be "controller\.cronjob")/);
  });
  withBrokenCopy('daemon-options.yaml', (y) => y.replace('requires: "--allocate-node-cidrs"', 'requires: "--allocate-node-cidr"'), (dir) => {
    assert.match(loadError(dir).message, /row "option\.cluster-cidr": \/constraints\/0\/requires names no option/);
  });
  withBrokenCopy('endpoints.yaml', (y) => y.replace('path: "/api/v1/namespaces/{namespace}/configmaps"', 'path: "/api/v1/namespace/{namespace}/configmaps"'), (dir) => {
    assert.match(loadError(dir).message, /endpoints\.yaml: row "endpoint\.core\.configmaps\.namespaced\.list": \/path must be/);
  });
  withBrokenCopy('fields.yaml', (y) => y.replace('default: "RollingUpdate"', 'default: "Rolling"'), (dir) => {
    assert.match(loadError(dir).message, /fields\.yaml: row "field\.DeploymentStrategy\.type": \/default must be one of/);
  });
});

test('unreadable and malformed files give clean errors', () => {
  withBrokenCopy('controllers.yaml', (y) => y + '  - id: [unclosed\n', (dir) => {
    assert.match(loadError(dir).message, /controllers\.yaml: is not valid YAML: .*\(154:1\)/);
  });
  withBrokenCopy('prefixes.yaml', () => 'prefixes: 3\n', (dir) => {
    assert.match(loadError(dir).message, /prefixes\.yaml: \/prefixes must be array/);
  });
  assert.match(loadError(join(tmpdir(), 'no-such-spec-tables-dir')).message, /prefixes\.yaml: cannot be read: ENOENT/);
  assert.throws(() => loadSpecTables({ vendor: 'Bad Vendor!' }), SpecTableError);
});

test('{vendor} is substituted everywhere from one setting', () => {
  const acme = loadSpecTables({ vendor: 'acme' });
  assert.equal(acme.optionByName('--cluster-name')?.default, 'acme');
  assert.equal(acme.optionByName('--x-api-content-type')?.default, 'application/vnd.acme.protobuf');
  assert.equal(acme.optionByName('--flex-volume-plugin-dir')?.default, '/usr/libexec/acme/kubelet-plugins/volume/exec/');
  assert.ok(acme.all.every((r) => !JSON.stringify(r).includes('{vendor}')), "acme.all.every((r) => !JSON.stringify(r).includes('{vendor}'))");
  assert.ok(acme.all.some((r) => JSON.stringify(r).includes('acme')), "acme.all.some((r) => JSON.stringify(r).includes('acme'))");
  assert.equal(t.optionByName('--cluster-name')?.default, 'kubernetes');
  assert.equal(loadSpecTables({ vendor: 'acme' }), acme, 'cached per vendor');
  assert.ok(Object.isFrozen(acme.options[0]), 'cached rows are frozen so no consumer can change them for another');
});

test('every option name and every path the spec markdown mentions is in the tables', () => {
  const optionTokens = new Set(md.match(/--[a-z][a-z0-9_-]*/g));
  assert.equal(optionTokens.size, 79);
  for (const name of optionTokens) assert.ok(optionByName(name), name);
  const pathTokens = new Set(md.match(/\b(CORE|EXT|APPS|BATCHB|BATCH)(\/[A-Za-z0-9<>/._-]*[A-Za-z0-9>])?/g));
  const specPaths = new Set([...t.endpoints.map((e) => e.specPath), ...t.prefixes.map((p) => p.prefix)]);
  assert.ok(pathTokens.size > 50, 'pathTokens.size > 50');
  for (const path of pathTokens) assert.ok(specPaths.has(path), path);
});
