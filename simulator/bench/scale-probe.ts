// The scale bench's latency probe in a thread of its own, as a user's kubectl is a process of its own: a GET of one
// object and a LIST chunk every 100 ms, timed from the request's send to its answer's last byte. Run in the API
// server's thread, a probe would also wait for that thread to read its answer: a second pass of the busy server's
// event loop that no outside client pays.
//
//   new Worker(<tsx-registering entry>, { workerData: { scaleProbe: { url, getPath, listPath, intervalMs } } }) → 'ready'
//   'go' → 'probing' (from now)      'stop' → { gets: number[], lists: number[] } (milliseconds)

import { parentPort, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

export interface ScaleProbeInit {
  url: string;
  getPath: string;
  listPath: string;
  intervalMs: number;
}

if (parentPort && (workerData as { scaleProbe?: ScaleProbeInit } | undefined)?.scaleProbe) {
  const init = (workerData as { scaleProbe: ScaleProbeInit }).scaleProbe;
  const port = parentPort;
  const pool = new Pool(init.url, { connections: 2 });
  const gets: number[] = [];
  const lists: number[] = [];
  let probing = true;
  const timed = async (path: string, into: number[]) => {
    const t = performance.now();
    const res = await pool.request({ method: 'GET', path });
    await res.body.arrayBuffer();
    if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode}`);
    into.push(performance.now() - t);
  };
  // One untimed round first: a new thread's first requests compile undici's code and open its connections (tens of
  // milliseconds), which is this thread starting, not the server answering.
  await timed(init.getPath, []);
  await timed(init.listPath, []);
  let loop: Promise<void> | undefined;
  port.on('message', async (m: string) => {
    if (m === 'go') {
      loop ??= (async () => {
        while (probing) {
          await timed(init.getPath, gets);
          await timed(init.listPath, lists);
          await new Promise((r) => setTimeout(r, init.intervalMs));
        }
      })();
      return port.postMessage('probing');
    }
    if (m !== 'stop') return;
    probing = false;
    await loop;
    await pool.close();
    port.postMessage({ gets, lists });
  });
  port.postMessage('ready');
}
