// npx tsx simulator [--port 6480] [--host 127.0.0.1] [--vendor kubernetes] ...
// The command itself is main.ts. This entry runs a compiled build of it when one matches the sources
// (compiled.ts: esbuild, kept under node_modules/.cache, checked against every source file's size and time), so
// that the first answer does not wait for tsx to read, resolve and transpile a few hundred modules one by one
// through its loader thread (measured: about half the CPU of a start). Without a current build it runs the sources,
// as before, and has one built in the background for the next start. SIMULATOR_COMPILED=0 always runs the sources.
import { buildInBackground, compiledEntry, runCompiled } from './compiled.ts';

// START_TIMING=1: when this process started (epoch ms, node's own clock origin), for simulator/bench/startup.bench.ts
// to time its first answer from this process's start rather than from npx's.
if (process.env.START_TIMING === '1') process.stderr.write(`start-timing: process started at ${performance.timeOrigin}\n`);

const entry = process.env.SIMULATOR_COMPILED === '0' ? undefined : compiledEntry();
if (entry) await (runCompiled(entry) as typeof import('./main.ts')).started;
else {
  await (await import('./main.ts')).started;
  if (process.env.SIMULATOR_COMPILED !== '0') buildInBackground();
}
