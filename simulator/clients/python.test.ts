// The Python `kubernetes` client (Debian's python3-kubernetes) against the simulator: python/matrix.py runs every
// check in one interpreter (its start-up costs a second) against a simulator with the controller daemon and one
// node (so pods, ReplicaSets and events have their full shapes) and a small watch history (so a 410 can be
// forced), through the client config the simulator writes. Each check is reported here as its own test.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { startSimulator, type RunningSimulator } from '../cluster.ts';
import { clientDir, pythonClient, requireClient, runPythonChecks, skipUnlessFound, type CheckResult, type ClientDir } from '../testing/real-clients.ts';

const probe = pythonClient();
const NS = 'python';
const CHECKS = [
  'version_endpoint',
  'list_with_limit_and_continue',
  'watch_stream_from_resource_version',
  'watch_stream_forced_410',
  'replace_config_map',
  'replace_deployment',
  'patch_strategic_and_json',
  'delete_with_orphan_dependents_false',
  'field_selectors',
  'every_response_deserialises_into_models',
  'kinds_added_for_1_9',
];

describe(`Python kubernetes client ${probe.found?.version ?? ''} against the simulator`, { skip: skipUnlessFound(probe) }, () => {
  let sim: RunningSimulator;
  let cd: ClientDir;
  let results = new Map<string, CheckResult>();
  let output = '';

  before(async () => {
    const python = requireClient(probe).path;
    sim = await startSimulator({ controllers: true, nodes: { count: 1, startMs: 50, log: () => {} }, watchHistoryEvents: 20, watchHistoryAgeMs: 1 });
    cd = clientDir(sim.url, NS);
    const created = await fetch(`${sim.url}/api/v1/namespaces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: NS } }) });
    assert.equal(created.status, 201);
    ({ results, output } = await runPythonChecks(python, 'matrix.py', cd, NS, 120_000));
  });
  after(async () => {
    await sim?.close();
    if (cd) rmSync(cd.dir, { recursive: true, force: true });
  });

  for (const name of CHECKS) {
    test(name.replaceAll('_', ' '), () => {
      const res = results.get(name);
      assert.ok(res, `matrix.py reported nothing for ${name}:\n${output}`);
      assert.ok(res.ok, res.detail);
    });
  }
});
