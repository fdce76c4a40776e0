// The API server alone in a child process, for benches that measure the server's own memory (RSS) without the
// load generator's: started with --expose-gc, it answers "measure" on its IPC channel with its memory after two
// full collections, so a figure is live objects plus what V8 keeps, not garbage waiting for a collection.
//
//   fork('child-server.ts', [], { execArgv: ['--expose-gc', '--import', 'tsx'] }) → { url } → 'measure' → MemorySample

import { readFileSync } from 'node:fs';
import { startApiServer } from '../server/start.ts';

export interface MemorySample {
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

function rssNow(): number {
  // /proc gives the resident set as the kernel counts it; memoryUsage().rss is the same number where /proc is absent.
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]) * 1024;
  } catch {
    /* not Linux */
  }
  return process.memoryUsage().rss;
}

const server = await startApiServer({
  watchHistoryEvents: Number(process.env.BENCH_HISTORY_EVENTS ?? 1000),
});
process.send!({ url: server.url });
process.on('message', async (msg: unknown) => {
  if (msg === 'measure') {
    const gc = (globalThis as { gc?: () => void }).gc;
    for (let i = 0; i < 3; i++) {
      gc?.();
      await new Promise((r) => setImmediate(r));
    }
    const u = process.memoryUsage();
    process.send!({ rss: rssNow(), heapUsed: u.heapUsed, external: u.external, arrayBuffers: u.arrayBuffers } satisfies MemorySample);
  } else if (msg === 'close') {
    await server.close();
    process.exit(0);
  }
});
