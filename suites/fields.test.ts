// The fields suite catches a server that returns a non-RFC 3339 timestamp, an integer as a string or a boolean as
// a string, and a protobuf envelope with a contentType set or a wrong typeMeta kind; the shape helpers, the
// independent envelope reader and the daemon-controllers log and --help readers are checked on their own.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertFailed, closeTargets, runThroughProxy } from './harness/testdata/run-on-target.ts';
import { jsonOf, pathOf, withJson } from './harness/testdata/proxy-server.ts';
import { isRfc3339Utc, shapeFindings, typeProblem, jsonFieldRows } from './harness/shapes.ts';
import { decodeEnvelope, stringAt, WireError } from './harness/pb-envelope.ts';
import { expectedSelection, gateHelpProblem, readSelection } from './daemon-controllers/selection.ts';
import { loadSpecTables } from '../spec-tables/index.ts';

after(closeTargets);

test('a non-RFC 3339 timestamp, an integer sent back as a string and a boolean as a string are caught, charged to their rows', async () => {
  const result = await runThroughProxy(
    {
      response(req, res) {
        if (req.method !== 'GET' || res.status !== 200) return res;
        const body = jsonOf(res);
        if (!body?.metadata) return res;
        const path = pathOf(req);
        if (/\/deployments\/shape-d$/.test(path)) body.metadata.creationTimestamp = '2018-01-02 03:04:05';
        else if (/\/jobs\/shape-j$/.test(path)) body.spec.parallelism = '0';
        else if (/\/cronjobs\/shape-c$/.test(path)) body.spec.suspend = 'true';
        else return res;
        return withJson(res, body);
      },
    },
    ['fields.object-shapes'],
  );
  const o = assertFailed(result, 'fields.object-shapes', /creationTimestamp/);
  assert.match(o.message ?? '', /field\.JobSpec\.parallelism: .*expected an integer/);
  assert.match(o.message ?? '', /field\.CronJobSpec\.suspend: .*expected a boolean/);
  assert.match(o.message ?? '', /field\.ObjectMeta\.creationTimestamp: .*RFC 3339/);
});

test('a protobuf envelope with contentType set, or a wrong typeMeta kind, is caught', async () => {
  const result = await runThroughProxy(
    {
      response(req, res) {
        if (req.method !== 'GET' || !(res.headers['content-type'] ?? '').includes('protobuf')) return res;
        const path = pathOf(req);
        if (/\/configmaps\/pb$/.test(path)) {
          // Field 4 (contentType), length-delimited, appended: still a valid message.
          const extra = Buffer.from('text/plain');
          return { ...res, body: Buffer.concat([res.body, Buffer.from([0x22, extra.length]), extra]) };
        }
        if (/\/deployments\/pb$/.test(path)) {
          const i = res.body.indexOf(Buffer.from('Deployment'));
          const body = Buffer.from(res.body);
          if (i > 0) body.write('Deploymenx', i);
          return { ...res, body };
        }
        return res;
      },
    },
    ['fields.protobuf-envelope'],
  );
  assertFailed(result, 'fields.protobuf-envelope', /contentType \(field 4\)|typeMeta\.kind/);
});

test('typeProblem knows the spec words', () => {
  assert.equal(typeProblem('timestamp', '2018-01-02T03:04:05Z'), undefined);
  assert.equal(typeProblem('Time', '2018-01-02T03:04:05.123Z'), undefined);
  assert.ok(typeProblem('timestamp', '2018-01-02T03:04:05+01:00'), 'an offset other than Z is not UTC');
  assert.ok(typeProblem('timestamp', '2018-01-02 03:04:05'), "typeProblem('timestamp', '2018-01-02 03:04:05')");
  assert.ok(typeProblem('timestamp', '2018-13-02T03:04:05Z'), "typeProblem('timestamp', '2018-13-02T03:04:05Z')");
  assert.ok(typeProblem('integer', '2'), "typeProblem('integer', '2')");
  assert.ok(typeProblem('integer', 2.5), "typeProblem('integer', 2.5)");
  assert.equal(typeProblem('integer', 2), undefined);
  assert.ok(typeProblem('boolean', 'true'), "typeProblem('boolean', 'true')");
  assert.ok(typeProblem('map of string to string', { a: 1 }), "typeProblem('map of string to string', { a: 1 })");
  assert.ok(typeProblem('string array', ['a', 1]), "typeProblem('string array', ['a', 1])");
  assert.ok(typeProblem('EnvVar array', [1]), "typeProblem('EnvVar array', [1])");
  assert.equal(typeProblem('integer or percentage string', '25%'), undefined);
  assert.ok(typeProblem('integer or percentage string', '25'), "typeProblem('integer or percentage string', '25')");
  assert.ok(typeProblem('DeploymentSpec', []), "typeProblem('DeploymentSpec', [])");
  assert.equal(isRfc3339Utc(null), false);
});

test('shapeFindings reaches container and container-status fields through the types table', () => {
  const tables = loadSpecTables();
  const rows = jsonFieldRows(tables, ['v1 Pod', 'apps/v1 Deployment']);
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'Bad_Name', image: 'x', tty: 'yes' }] }, status: { containerStatuses: [{ name: 'c', ready: 'true', restartCount: 0 }] } };
  const { findings, present } = shapeFindings(tables, rows, [{ kind: 'v1 Pod', body: pod, where: 'pod' }]);
  const ids = findings.map((f) => f.row).sort();
  assert.deepEqual(ids, ['field.Container.name', 'field.Container.tty', 'field.ContainerStatus.ready']);
  assert.ok(present.has('field.ContainerStatus.restartCount'), "present.has('field.ContainerStatus.restartCount')");
});

/** A hand-built envelope: prefix, typeMeta {apiVersion, kind}, raw {metadata {name}}. */
function envelope(extra: number[] = []): Buffer {
  const str = (field: number, s: string) => [(field << 3) | 2, Buffer.byteLength(s), ...Buffer.from(s)];
  const msg = (field: number, bytes: number[]) => [(field << 3) | 2, bytes.length, ...bytes];
  const typeMeta = [...str(1, 'v1'), ...str(2, 'ConfigMap')];
  const raw = msg(1, str(1, 'cm'));
  return Buffer.from([0x6b, 0x38, 0x73, 0x00, ...msg(1, typeMeta), ...msg(2, raw), ...extra]);
}

test('the envelope reader decodes the fields of spec 2.6 and rejects what is not an envelope', () => {
  const env = decodeEnvelope(envelope());
  assert.deepEqual(env.typeMeta, { apiVersion: 'v1', kind: 'ConfigMap' });
  assert.equal(stringAt(env.raw!, [1, 1]), 'cm');
  assert.equal(env.contentType, undefined);
  assert.equal(decodeEnvelope(envelope([0x22, 1, 0x78])).contentType, 'x');
  assert.throws(() => decodeEnvelope(Buffer.from('{"kind":"ConfigMap"}')), WireError);
  assert.throws(() => decodeEnvelope(envelope().subarray(0, 10)), WireError);
});

test('the daemon log reader understands both wordings, and the --controllers arithmetic follows 8.2', () => {
  const tables = loadSpecTables();
  const names = tables.controllers.map((c) => c.name);
  const sim = readSelection('I] enabled controllers: cronjob, job\nI] disabled controllers: tokencleaner\n', names);
  assert.equal(sim.get('cronjob'), 'enabled');
  assert.equal(sim.get('tokencleaner'), 'disabled');
  const kcm = readSelection('W0101 "bootstrapsigner" is disabled\nI0101 Started "deployment"\nW0101 Skipping "route"\n', names);
  assert.deepEqual([kcm.get('bootstrapsigner'), kcm.get('deployment'), kcm.get('route')], ['disabled', 'enabled', 'enabled']);
  assert.equal(readSelection('enabled controllers: job\n"job" is disabled\n', names).get('job'), 'both');
  const byDefault = expectedSelection(['*'], tables.controllers);
  assert.equal(byDefault.size, names.length - 2);
  assert.ok(!byDefault.has('bootstrapsigner') && !byDefault.has('tokencleaner'), "!byDefault.has('bootstrapsigner') && !byDefault.has('tokencleaner')");
  assert.deepEqual([...expectedSelection(['job', 'tokencleaner'], tables.controllers)].sort(), ['job', 'tokencleaner']);
  assert.ok(!expectedSelection(['*', '-job'], tables.controllers).has('job'), "!expectedSelection(['*', '-job'], tables.controllers).has('job')");
});

test('the gate help reader wants the stage and default of the spec', () => {
  const gate = loadSpecTables().featureGates.find((g) => g.name === 'APIListChunking')!;
  assert.equal(gateHelpProblem('      APIListChunking=true|false (BETA - default=true)\n', gate), undefined);
  assert.match(gateHelpProblem('      APIListChunking=true|false (ALPHA - default=true)\n', gate) ?? '', /stage/);
  assert.match(gateHelpProblem('      APIListChunking=true|false (BETA - default=false)\n', gate) ?? '', /default/);
  assert.match(gateHelpProblem('nothing here', gate) ?? '', /not in --help/);
});
