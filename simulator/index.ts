// npx tsx simulator [--port 8080] [--host 127.0.0.1] [--vendor kubernetes] ...
// Starts the API server and prints its URL and a ready-to-use client config (kubeconfig). The controller
// daemon runs in the same process as a client of the server over HTTP (leader election off), unless
// --no-controllers asks for the API server alone (then `npx tsx simulator/controllers --master URL` can be
// pointed at it).

import { parseArgs } from 'node:util';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientConfigYaml, startSimulator } from './cluster.ts';
import { parseGoDuration, toMilliseconds } from './controllers/daemon/go-duration.ts';
import { openStore, parseStorageArgs, STORAGE_HELP, STORAGE_OPTIONS } from './storage/etcd-cli.ts';

const HELP = `Usage: npx tsx simulator [options]

Starts the reference API server (core/v1, apps/v1, batch/v1, batch/v1beta1, extensions/v1beta1) on HTTP,
with the controller daemon (namespace, garbage collector, service accounts, ...) running against it.

Options:
  --port N                    port to listen on (default 8080; 0 picks a free port)
  --host ADDR                 address to listen on (default 127.0.0.1)
  --vendor WORD               the {vendor} word of media types (default kubernetes)
  --continue-ttl DURATION     lifetime of continue tokens, Go duration syntax (default 5m0s)
  --watch-history-events N    changes kept for watch resumption (default 1000)
  --watch-history-age DURATION  age of changes kept for watch resumption (default 5m0s)
  --kubeconfig-out FILE       where to write the client config (default: a file in the temp directory)
${STORAGE_HELP}  --no-controllers            run the API server alone, without the controller daemon
  --nodes N                   simulated nodes (kubelets and a scheduler) that run the pods (default 3; 0: none)
  --daemon-arg ARG            an option for the in-process daemon, e.g. --daemon-arg=--concurrent-gc-syncs=5
                              (repeatable; see npx tsx simulator/controllers --help)
  -h, --help                  this help
`;

function fail(msg: string): never {
  process.stderr.write(`simulator: ${msg}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string', default: '8080' },
        host: { type: 'string', default: '127.0.0.1' },
        vendor: { type: 'string', default: 'kubernetes' },
        'continue-ttl': { type: 'string', default: '5m0s' },
        'watch-history-events': { type: 'string', default: '1000' },
        'watch-history-age': { type: 'string', default: '5m0s' },
        'kubeconfig-out': { type: 'string' },
        ...STORAGE_OPTIONS,
        'no-controllers': { type: 'boolean' },
        nodes: { type: 'string', default: '3' },
        'daemon-arg': { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (e) {
    fail(`${(e as Error).message} (see --help)`);
  }
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`invalid --port ${JSON.stringify(values.port)}: expected 0-65535`);
  const nodeCount = Number(values.nodes);
  if (!Number.isInteger(nodeCount) || nodeCount < 0 || nodeCount > 10000) fail(`invalid --nodes ${JSON.stringify(values.nodes)}: expected 0-10000`);
  const historyEvents = Number(values['watch-history-events']);
  if (!Number.isInteger(historyEvents) || historyEvents < 1) fail(`invalid --watch-history-events ${JSON.stringify(values['watch-history-events'])}: expected a positive integer`);
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(values.vendor!)) fail(`invalid --vendor ${JSON.stringify(values.vendor)}: expected a lower-case word`);
  let continueTtlMs: number;
  let historyAgeMs: number;
  try {
    continueTtlMs = toMilliseconds(parseGoDuration(values['continue-ttl']!));
    historyAgeMs = toMilliseconds(parseGoDuration(values['watch-history-age']!));
  } catch (e) {
    fail((e as Error).message);
  }
  let storage;
  try {
    storage = parseStorageArgs(values);
  } catch (e) {
    fail((e as Error).message);
  }
  let sim;
  try {
    const store = await openStore(storage, { historyEvents, historyAgeMs });
    sim = await startSimulator({
      store,
      port,
      host: values.host,
      vendor: values.vendor,
      continueTtlMs,
      watchHistoryEvents: historyEvents,
      watchHistoryAgeMs: historyAgeMs,
      controllers: !values['no-controllers'],
      nodes: { count: nodeCount, log: (line) => process.stderr.write(`${glogPrefix()}nodes] ${line}\n`) },
      controllerArgs: values['daemon-arg'] ?? [],
      controllerLog: (line) => process.stderr.write(`${glogPrefix()}controller-daemon] ${line}\n`),
    });
  } catch (e) {
    fail(`cannot start: ${(e as Error).message}`);
  }
  const kubeconfigPath = values['kubeconfig-out'] ?? join(tmpdir(), `cluster-simulator-${sim.port}.kubeconfig`);
  writeFileSync(kubeconfigPath, clientConfigYaml(sim.url));
  process.stdout.write(`API server listening on ${sim.url}\n`);
  if (storage.storage === 'etcd') process.stdout.write(`storage: etcd at ${storage.servers.join(',')} under ${storage.prefix}/\n`);
  process.stdout.write(`client config: ${kubeconfigPath}\n`);
  process.stdout.write(`try: kubectl --kubeconfig ${kubeconfigPath} get namespaces\n`);
  process.stdout.write(`nodes: ${sim.nodes ? sim.nodes.nodeNames.join(', ') : 'none (--nodes 0)'}\n`);
  if (sim.daemon) process.stdout.write(`controller daemon: ${sim.daemon.url}/configz (log on stderr)\n`);
  else process.stdout.write(`controller daemon: not running (--no-controllers); start one with: npx tsx simulator/controllers --master ${sim.url}\n`);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`${signal}: shutting down\n`);
    // Closing waits for open requests; a watch held by an outside client (a daemon, kubectl get -w) would
    // keep it waiting for minutes, so the process ends after a short grace period regardless.
    setTimeout(() => process.exit(0), 3_000).unref();
    await sim.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

/** glog-style "I1122 00:20:43.624000 " prefix for the daemon's lines. */
function glogPrefix(): string {
  const d = new Date();
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `I${p(d.getMonth() + 1)}${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}000 `;
}

await main();
