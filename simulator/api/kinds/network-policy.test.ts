// NetworkPolicy at networking.k8s.io/v1 and extensions/v1beta1 through a running server: the same 1.9 defaults
// and the same refusals at both versions, and one object read at the other version.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer, type RunningApiServer } from '../../server/start.ts';

type Json = Record<string, any>;
let server: RunningApiServer;
const VERSIONS = ['networking.k8s.io/v1', 'extensions/v1beta1'];

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const r = await fetch(server.url + path, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as Json };
}
const collection = (gv: string) => `/apis/${gv}/namespaces/default/networkpolicies`;

before(async () => {
  server = await startApiServer();
});
after(async () => {
  await server.close();
});

test('defaults: a port protocol TCP; policyTypes Ingress, and Egress with egress rules; read at the other version', async () => {
  for (const [i, gv] of VERSIONS.entries()) {
    const other = VERSIONS[1 - i];
    const ingressOnly = await call('POST', collection(gv), { metadata: { name: `in-${i}` }, spec: { podSelector: {}, ingress: [{ ports: [{ port: 80 }] }] } });
    assert.equal(ingressOnly.status, 201, JSON.stringify(ingressOnly.body));
    assert.deepEqual(ingressOnly.body.spec.policyTypes, ['Ingress']);
    assert.deepEqual(ingressOnly.body.spec.ingress[0].ports, [{ protocol: 'TCP', port: 80 }]);
    const both = await call('POST', collection(gv), { metadata: { name: `eg-${i}` }, spec: { podSelector: { matchLabels: { app: 'a' } }, egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }] }] } });
    assert.equal(both.status, 201, JSON.stringify(both.body));
    assert.deepEqual(both.body.spec.policyTypes, ['Ingress', 'Egress']);
    const read = await call('GET', `${collection(other)}/eg-${i}`);
    assert.equal(read.body.apiVersion, other);
    assert.deepEqual(read.body.spec, both.body.spec);
  }
});

test('refusals as 1.9: peers, ports, ipBlock, policyTypes, the pod selector; on update too', async () => {
  const cases: Array<[Json, string, RegExp]> = [
    [{ ingress: [{ from: [{}] }] }, 'spec.ingress[0].from[0]', /Required value: must specify a peer/],
    [{ ingress: [{ from: [{ podSelector: {}, namespaceSelector: {} }] }] }, 'spec.ingress[0].from[0]', /Forbidden: may not specify more than 1 peer/],
    [{ egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/33' } }] }] }, 'spec.egress[0].to[0].ipBlock.cidr', /invalid CIDR address: 10\.0\.0\.0\/33/],
    [{ egress: [{ to: [{ ipBlock: { cidr: '' } }] }] }, 'spec.egress[0].to[0].ipBlock.cidr', /Required value/],
    [{ egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/16', except: ['10.2.0.0/24'] } }] }] }, 'spec.egress[0].to[0].ipBlock.except[0]', /must be a strict subset of `cidr`/],
    [{ egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/16', except: ['10.0.0.0/16'] } }] }] }, 'spec.egress[0].to[0].ipBlock.except[0]', /must be a strict subset of `cidr`/],
    [{ ingress: [{ ports: [{ protocol: 'SCTP', port: 80 }] }] }, 'spec.ingress[0].ports[0].protocol', /Unsupported value: "SCTP": supported values: "TCP", "UDP"/],
    [{ ingress: [{ ports: [{ port: 70000 }] }] }, 'spec.ingress[0].ports[0].port', /must be between 1 and 65535, inclusive/],
    [{ ingress: [{ ports: [{ port: 'Not_A_Name' }] }] }, 'spec.ingress[0].ports[0].port', /Invalid value: "Not_A_Name"/],
    [{ policyTypes: ['Sideways'] }, 'spec.policyTypes[0]', /Unsupported value: "Sideways": supported values: "Ingress", "Egress"/],
    [{ policyTypes: ['Ingress', 'Egress', 'Ingress'] }, 'spec.policyTypes', /may not specify more than two policyTypes/],
    [{ podSelector: { matchLabels: { 'bad key!': 'x' } } }, 'spec.podSelector.matchLabels', /Invalid value/],
  ];
  for (const gv of VERSIONS) {
    for (const [spec, field, message] of cases) {
      const r = await call('POST', collection(gv), { metadata: { name: 'bad' }, spec: { podSelector: {}, ...spec } });
      assert.equal(r.status, 422, `${gv} ${JSON.stringify(spec)}: ${JSON.stringify(r.body)}`);
      const cause = (r.body.details.causes as Json[]).find((c) => c.field === field);
      assert.ok(cause, `${gv} ${field} in ${JSON.stringify(r.body.details.causes)}`);
      assert.match(cause.message, message);
    }
  }
  const created = await call('POST', collection(VERSIONS[0]), { metadata: { name: 'upd' }, spec: { podSelector: {} } });
  assert.equal(created.status, 201);
  const changed = await call('PUT', `${collection(VERSIONS[1])}/upd`, { ...created.body, apiVersion: VERSIONS[1], spec: { podSelector: {}, ingress: [{ from: [{}] }] } });
  assert.equal(changed.status, 422, JSON.stringify(changed.body));
  const ok = await call('PUT', `${collection(VERSIONS[1])}/upd`, { ...created.body, apiVersion: VERSIONS[1], spec: { podSelector: { matchLabels: { a: 'b' } } } });
  assert.equal(ok.status, 200, 'the spec may change');
});
