// `--controllers=*,bootstrapsigner,tokencleaner` with the options and gates each controller needs: every
// controller of the spec table is reported started, none "not started" for want of a control loop.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startSimulator } from '../cluster.ts';
import { startDaemon } from './daemon/daemon.ts';
import { makePki, noOpenssl } from '../testing/pki.ts';
import { eventually } from '../testing/workload-test-env.ts';
import { loadSpecTables } from '../../spec-tables/index.ts';

test('--controllers=*,bootstrapsigner,tokencleaner with the needed options: every controller started', { skip: noOpenssl }, async () => {
  const pki = makePki('all-controllers-');
  const sim = await startSimulator();
  const ca = pki.ca('signer');
  const daemon = await startDaemon(
    [
      '--master', sim.url, '--leader-elect=false', '--port', '0', '--address', '127.0.0.1', '--x-api-content-type', 'application/json',
      '--controllers=*,bootstrapsigner,tokencleaner',
      `--service-account-private-key-file=${pki.key('sa.key')}`,
      `--cluster-signing-cert-file=${ca.cert}`, `--cluster-signing-key-file=${ca.key}`,
      '--allocate-node-cidrs', '--cluster-cidr=10.244.0.0/16', '--configure-cloud-routes', '--cloud-provider=simulated',
      '--feature-gates=PVCProtection=true,ExpandPersistentVolumes=true',
    ],
    { log: () => {} },
  );
  try {
    const names = loadSpecTables().controllers.map((c) => c.name).sort();
    const states = await eventually('every controller decided', async () => {
      const s = daemon.controllerStates();
      return names.every((n) => s[n] && s[n].state !== 'pending') ? s : undefined;
    }, 30_000);
    const notRunning = Object.entries(states).filter(([, s]) => s.state !== 'running').map(([n, s]) => `${n}: ${s.state} ${'reason' in s ? String(s.reason) : ''}`);
    assert.deepEqual(notRunning, []);
    assert.deepEqual(Object.keys(states).sort(), names);
  } finally {
    await daemon.close();
    await sim.close();
    pki.cleanup();
  }
});
