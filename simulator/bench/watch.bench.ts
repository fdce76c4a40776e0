// Watch fan-out over HTTP (issue: 1,000 concurrent watchers on one collection, 1,000 writes): every watcher must
// receive every event in order; reports events/s, p99 delivery latency, and encodings per event (which must
// equal the number of distinct wire formats in use: one here).

import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { startSimulator } from '../cluster.ts';

const WATCHERS = Number(process.env.BENCH_WATCHERS ?? 1000);
const WRITES = Number(process.env.BENCH_WRITES ?? 1000);

export async function run(): Promise<void> {
  const sim = await startSimulator();
  const agent = new Agent({ connections: WATCHERS + 16, pipelining: 0 });
  try {
    await request(`${sim.url}/api/v1/namespaces`, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'bench' } }) }).then((r) => r.body.text());
    const list = await request(`${sim.url}/api/v1/namespaces/bench/configmaps`, { dispatcher: agent }).then((r) => r.body.json() as Promise<{ metadata: { resourceVersion: string } }>);
    const rv = list.metadata.resourceVersion;
    const sentAt = new Map<string, number>();
    const latencies: number[] = [];
    let received = 0;
    let outOfOrder = 0;
    const watchers = await Promise.all(
      Array.from({ length: WATCHERS }, async () => {
        const res = await request(`${sim.url}/api/v1/namespaces/bench/configmaps?watch=true&resourceVersion=${rv}`, { dispatcher: agent });
        let buf = '';
        let last = 0;
        let count = 0;
        const done = (async () => {
          for await (const chunk of res.body) {
            buf += chunk.toString();
            let nl;
            while ((nl = buf.indexOf('\n')) >= 0) {
              const line = buf.slice(0, nl);
              buf = buf.slice(nl + 1);
              const ev = JSON.parse(line) as { object: { metadata: { name: string; resourceVersion: string } } };
              const r = Number(ev.object.metadata.resourceVersion);
              if (r <= last) outOfOrder++;
              last = r;
              const t = sentAt.get(ev.object.metadata.name);
              if (t !== undefined) latencies.push(performance.now() - t);
              received++;
              if (++count === WRITES) {
                res.body.destroy();
                return;
              }
            }
          }
        })().catch(() => undefined);
        return { done };
      }),
    );
    const encodingsBefore = sim.ctx.hub.stats.encodings;
    const start = performance.now();
    for (let i = 0; i < WRITES; i++) {
      const name = `cm-${i}`;
      sentAt.set(name, performance.now());
      await request(`${sim.url}/api/v1/namespaces/bench/configmaps`, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name }, data: { i: String(i) } }) }).then((r) => r.body.text());
    }
    await Promise.all(watchers.map((w) => w.done));
    const seconds = (performance.now() - start) / 1000;
    latencies.sort((a, b) => a - b);
    const p99 = latencies[Math.floor(latencies.length * 0.99)] ?? NaN;
    const encodings = sim.ctx.hub.stats.encodings - encodingsBefore;
    const expected = WATCHERS * WRITES;
    console.log(`watch fan-out: ${WATCHERS} watchers x ${WRITES} writes: received ${received}/${expected} events (${received === expected ? 'all' : 'MISSING'}), ${outOfOrder} out of order`);
    console.log(`watch fan-out: ${(received / seconds).toFixed(0)} events/s delivered, p99 delivery latency ${p99.toFixed(1)} ms`);
    console.log(`watch fan-out: ${(encodings / WRITES).toFixed(2)} encodings per event for 1 wire format in use (target 1.00: ${encodings === WRITES ? 'met' : 'MISSED'})`);
  } finally {
    await agent.close();
    await sim.close();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await run();
