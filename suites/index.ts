// Entry point of `npx tsx suites`: the conformance harness CLI (see suites/README.md).
// The command itself is cli/main.ts. This entry runs the compiled build of it when one matches the sources
// (harness/compile.ts: the build every run makes for its check processes, which holds the command, the embedded
// simulator and every suite file; used while every source file's size and time are unchanged), so that the start
// does not wait for tsx to read, resolve and transpile several hundred modules one by one through its loader
// thread. Without a current build it runs the sources; the run then makes the build. SUITES_COMPILED=0 always runs
// the sources.
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chunkLoader } from '../simulator/compiled.ts';
import { commonJsFileOf, currentBuild, setCompiledSuites, stopCompiler, SUITES_BUILD, suitesBuildEntries } from './harness/compile.ts';
import { runNoTestsInProcess } from './harness/parent-process.ts';

// START_TIMING=1: when this process started (epoch ms, node's own clock origin), for simulator/bench/startup.bench.ts
// to time the first finished check from this process's start rather than from npx's.
if (process.env.START_TIMING === '1') process.stderr.write(`start-timing: process started at ${performance.timeOrigin}\n`);

// Before node:test is loaded: this process only starts the check processes (harness/parent-process.ts).
runNoTestsInProcess();

type Cli = typeof import('./cli/main.ts');
const build = process.env.SUITES_COMPILED === '0' ? undefined : currentBuild(SUITES_BUILD, suitesBuildEntries());
let cli: Cli;
if (build && existsSync(commonJsFileOf(build['suites-cli']))) {
  // The build's CommonJS chunks (harness/compile.ts COMMONJS_DIR): none goes through tsx's loader thread.
  const loader = chunkLoader(dirname(commonJsFileOf(build['suites-cli'])));
  setCompiledSuites(build, loader);
  cli = loader.load(commonJsFileOf(build['suites-cli'])) as Cli;
} else if (build) {
  setCompiledSuites(build);
  cli = (await import(pathToFileURL(build['suites-cli']).href)) as Cli;
} else cli = await import('./cli/main.ts');

const code = await cli.main(process.argv.slice(2));
// A build still running (the first run after an edit that ends early) is stopped rather than cut off (stopCompiler).
await stopCompiler();
// Open keep-alive sockets or a stopped simulator must not hold the exit.
process.exit(code);
