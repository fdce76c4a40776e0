import Fastify from 'fastify';
import { runChecks } from '../engine.ts';
const app = Fastify();
const namespaces = new Set<string>();
app.get('/api', async () => ({ kind: 'APIVersions', versions: ['v1'] }));
app.get('/apis', async () => ({ kind: 'APIGroupList', groups: [] }));
app.get('/api/v1', async () => ({ kind: 'APIResourceList', groupVersion: 'v1', resources: [{ name: 'namespaces', namespaced: false, kind: 'Namespace', verbs: ['create', 'delete', 'get', 'list'] }] }));
app.post('/api/v1/namespaces', async (req, reply) => { const n = (req.body as any).metadata.name; namespaces.add(n); reply.code(201); return req.body; });
app.get('/api/v1/namespaces', async () => ({ kind: 'NamespaceList', items: [...namespaces].map((name) => ({ metadata: { name } })) }));
app.delete('/api/v1/namespaces/:name', async (req) => { namespaces.delete((req.params as any).name); return { kind: 'Status', status: 'Success' }; });
const url = await app.listen({ port: 0, host: '127.0.0.1' });
const t0 = Date.now();
const result = await runChecks({ connection: { url }, vendor: 'kubernetes', seed: 42, runs: 20, workers: 2, timeoutSeconds: 10, replayCommand: 'npx tsx suites --target ' + url,
  suiteFiles: [{ name: 'toy', file: '/work/main/suites/harness/testdata/toy.suite.ts' }] });
console.log(Date.now() - t0, 'ms');
console.log(JSON.stringify(result.checks.map(c => ({ id: c.id, status: c.status, reason: c.reason, message: c.message, rows: c.evidence?.failedRows, replay: c.evidence?.replay, ex: c.evidence?.exchanges.length, curl: c.evidence?.exchanges[0]?.curl })), null, 1));
console.log('left', [...namespaces], 'swept', result.swept);
await app.close();
