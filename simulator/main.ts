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
import { parseGoDuration, toMilliseconds } from './util/go-duration.ts';
import { openStore, parseStorageArgs, STORAGE_HELP, STORAGE_OPTIONS } from './storage/etcd-cli.ts';
import { buildSecureServing, type SecureServing } from './server/secure-serving.ts';
import { renderKubeconfig } from './client/kubeconfig.ts';

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
  --receive-timeout DURATION  how long a request's headers and body may take to arrive before it is cut with
                              408 (default 1m0s)
${STORAGE_HELP}  --no-controllers            run the API server alone, without the controller daemon
  --nodes N                   simulated nodes (kubelets and a scheduler) that run the pods (default 3; 0: none)
  --zones Z                   spread the nodes over Z zones of one region (failure-domain.beta.kubernetes.io/zone
                              sim-region-1-a, -b, ...; default 0: no zone labels)
  --node-status-update-frequency DURATION
                              the simulated kubelets' heartbeat (default 10s, or a fifth of a shorter
                              --node-monitor-grace-period given to the daemon, so that healthy nodes never look
                              unresponsive); fail a node with
                              kubectl annotate node NAME simulator.cluster.local/node-state=stopped --overwrite
  --daemon-arg ARG            an option for the in-process daemon, e.g. --daemon-arg=--concurrent-gc-syncs=5
                              (repeatable; see npx tsx simulator/controllers --help). The daemon runs with
                              --allocate-node-cidrs --cluster-cidr=10.244.0.0/16 unless these say otherwise

Security (none given: plain HTTP without authentication or authorization, like the real insecure port):
  --secure                    serve HTTPS with a CA and serving certificate made at start (SANs: the listen
                              address, localhost, 127.0.0.1); the client config written carries the CA and an
                              admin client certificate (O=system:masters)
  --tls-cert-file FILE        serve HTTPS with this certificate (PEM) ...
  --tls-private-key-file FILE ... and this key
  --client-ca-file FILE       accept client certificates signed by these CAs (user = CN, groups = O)
  --token-auth-file FILE      static bearer tokens, CSV: token,user,uid,"group1,group2"
  --service-account-key-file FILE  PEM keys that verify service-account tokens (default: a key made at start,
                              whose private half the in-process daemon signs with)
  --service-account-lookup BOOL    refuse tokens whose ServiceAccount or Secret is gone (default true)
  --anonymous-auth BOOL       requests without credentials are system:anonymous (default true)
  --authorization-mode MODES  comma list of AlwaysAllow, AlwaysDeny, RBAC (default AlwaysAllow); RBAC writes
                              the default 1.9 roles and bindings at start

Subcommands:
  npx tsx simulator proxy --kubeconfig FILE [--port N] [--api-prefix /]   a client-side proxy (like kubectl proxy)
  -v, --v N                   log verbosity (glog levels, default 0); at 3 or more the API server logs every
                              request on stderr, as the real server's httplog: method and URI, latency, status,
                              user agent, client address and the user it was attributed to
  -h, --help                  this help
`;

function fail(msg: string): never {
  process.stderr.write(`simulator: ${msg}\n`);
  process.exit(2);
}

/** Go-style boolean flags given bare (`--anonymous-auth`) mean true; parseArgs needs the value spelled out. */
const BOOL_VALUE_FLAGS = ['--anonymous-auth', '--service-account-lookup'];

function normalizeArgv(argv: string[]): string[] {
  return argv.flatMap((a, i) => {
    if (!BOOL_VALUE_FLAGS.includes(a)) return [a];
    const next = argv[i + 1];
    return next === 'true' || next === 'false' ? [a] : [`${a}=true`];
  });
}

function parseBool(flag: string, v: string | undefined): boolean | undefined {
  if (v === undefined) return undefined;
  if (/^(1|t|true|TRUE|True)$/.test(v)) return true;
  if (/^(0|f|false|FALSE|False)$/.test(v)) return false;
  fail(`invalid ${flag} ${JSON.stringify(v)}: expected true or false`);
}

/** How long after the API server listens the in-process daemon and nodes start (see startSimulator's clientsBehind). */
const CLIENTS_AFTER_MS = 50;

async function main(): Promise<void> {
  if (process.argv[2] === 'proxy') {
    const { runProxyCommand } = await import('./proxy/command.ts');
    process.exitCode = await runProxyCommand(process.argv.slice(3));
    return;
  }
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
        'receive-timeout': { type: 'string', default: '1m0s' },
        ...STORAGE_OPTIONS,
        'no-controllers': { type: 'boolean' },
        nodes: { type: 'string', default: '3' },
        zones: { type: 'string', default: '0' },
        'node-status-update-frequency': { type: 'string' },
        'daemon-arg': { type: 'string', multiple: true },
        secure: { type: 'boolean' },
        'tls-cert-file': { type: 'string' },
        'tls-private-key-file': { type: 'string' },
        'client-ca-file': { type: 'string' },
        'token-auth-file': { type: 'string' },
        'service-account-key-file': { type: 'string' },
        'service-account-lookup': { type: 'string' },
        'anonymous-auth': { type: 'string' },
        'authorization-mode': { type: 'string' },
        v: { type: 'string', short: 'v', default: '0' },
        help: { type: 'boolean', short: 'h' },
      },
      args: normalizeArgv(process.argv.slice(2)),
      strict: true,
    }));
  } catch (e) {
    fail(`${(e as Error).message} (see --help)`);
  }
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const verbosity = Number(values.v);
  if (!Number.isInteger(verbosity) || verbosity < 0) fail(`invalid --v ${JSON.stringify(values.v)}: expected a level 0, 1, 2, ...`);
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`invalid --port ${JSON.stringify(values.port)}: expected 0-65535`);
  const nodeCount = Number(values.nodes);
  if (!Number.isInteger(nodeCount) || nodeCount < 0 || nodeCount > 10000) fail(`invalid --nodes ${JSON.stringify(values.nodes)}: expected 0-10000`);
  const zones = Number(values.zones);
  if (!Number.isInteger(zones) || zones < 0 || zones > 26) fail(`invalid --zones ${JSON.stringify(values.zones)}: expected 0-26`);
  const daemonArgs = values['daemon-arg'] ?? [];
  let heartbeatMs: number;
  try {
    heartbeatMs = kubeletHeartbeatMs(values['node-status-update-frequency'], daemonArgs);
  } catch (e) {
    fail((e as Error).message);
  }
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
  let serving: SecureServing;
  try {
    serving = await buildSecureServing({
      secure: values.secure,
      tlsCertFile: values['tls-cert-file'],
      tlsPrivateKeyFile: values['tls-private-key-file'],
      clientCaFile: values['client-ca-file'],
      tokenAuthFile: values['token-auth-file'],
      serviceAccountKeyFile: values['service-account-key-file'],
      serviceAccountLookup: parseBool('--service-account-lookup', values['service-account-lookup']),
      anonymousAuth: parseBool('--anonymous-auth', values['anonymous-auth']),
      authorizationMode: values['authorization-mode'],
      host: values.host!,
    });
  } catch (e) {
    fail((e as Error).message);
  }
  let sim;
  try {
    const store = await openStore(storage, { historyEvents, historyAgeMs });
    const receiveTimeout = (() => {
      try {
        return toMilliseconds(parseGoDuration(values['receive-timeout']!));
      } catch (e) {
        return fail(`invalid --receive-timeout: ${(e as Error).message}`);
      }
    })();
    if (!(receiveTimeout > 0)) fail('invalid --receive-timeout: must be positive');
    sim = await startSimulator({
      store,
      port,
      host: values.host,
      vendor: values.vendor,
      continueTtlMs,
      requestReceiveTimeoutMs: receiveTimeout,
      watchHistoryEvents: historyEvents,
      watchHistoryAgeMs: historyAgeMs,
      controllers: !values['no-controllers'],
      nodes: { count: nodeCount, zones, heartbeatMs, log: (line) => process.stderr.write(`${glogPrefix()}nodes] ${line}\n`) },
      // Node IPAM on, as kubeadm-made clusters have it (pod IPs from each node's range); --daemon-arg wins.
      controllerArgs: ['--allocate-node-cidrs', '--cluster-cidr=10.244.0.0/16', ...daemonArgs],
      controllerLog: (line) => process.stderr.write(`${glogPrefix()}controller-daemon] ${line}\n`),
      serving,
      // httplog's level in the real server.
      requestLog: verbosity >= 3 ? (line) => process.stderr.write(`${glogPrefix()}httplog] ${line}\n`) : undefined,
      // The daemon and the nodes start a moment after the API server listens: a client already waiting for it (a
      // harness polling /api, kubectl) is answered first, not after the 150-200 ms of event loop their start takes.
      // The lines below are printed once they are up.
      clientsBehind: CLIENTS_AFTER_MS,
    });
    await sim.ready;
  } catch (e) {
    fail(`cannot start: ${(e as Error).message}`);
  }
  const kubeconfigPath = values['kubeconfig-out'] ?? join(tmpdir(), `cluster-simulator-${sim.port}.kubeconfig`);
  if (serving.enabled) {
    const creds = serving.admin && 'token' in serving.admin ? { token: serving.admin.token } : { cert: serving.admin?.cert, key: serving.admin?.key };
    writeFileSync(kubeconfigPath, renderKubeconfig({ server: sim.url, ca: serving.ca, ...creds, namespace: 'default' }), { mode: 0o600 });
  } else writeFileSync(kubeconfigPath, clientConfigYaml(sim.url));
  process.stdout.write(`API server listening on ${sim.url}\n`);
  if (!serving.enabled) process.stdout.write('security: plain HTTP, no authentication, no authorization (see --secure and --authorization-mode)\n');
  for (const note of serving.notes) process.stdout.write(`${note}\n`);
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

/**
 * The kubelets' heartbeat: --node-status-update-frequency, else 10 s or a fifth of a shorter
 * --node-monitor-grace-period among the daemon's options (heartbeat times have whole seconds, so the grace
 * period must also exceed a second plus the heartbeat).
 */
function kubeletHeartbeatMs(explicit: string | undefined, daemonArgs: readonly string[]): number {
  if (explicit !== undefined) {
    const ms = toMilliseconds(parseGoDuration(explicit));
    if (!(ms >= 10)) throw new Error(`invalid --node-status-update-frequency ${JSON.stringify(explicit)}: expected at least 10ms`);
    return ms;
  }
  let grace: number | undefined;
  for (let i = 0; i < daemonArgs.length; i++) {
    const m = /^--node[-_]monitor[-_]grace[-_]period(?:=(.*))?$/.exec(daemonArgs[i]);
    if (!m) continue;
    const text = m[1] ?? daemonArgs[i + 1];
    try {
      grace = toMilliseconds(parseGoDuration(text ?? ''));
    } catch {
      // The daemon reports a bad value itself.
    }
  }
  return grace !== undefined && grace / 5 < 10_000 ? Math.max(100, Math.floor(grace / 5)) : 10_000;
}

/** glog-style "I1122 00:20:43.624000 " prefix for the daemon's lines. */
function glogPrefix(): string {
  const d = new Date();
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `I${p(d.getMonth() + 1)}${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}000 `;
}

// Not awaited here: the compiled build runs this file's chunk as a CommonJS function body (compiled.ts), where a
// top-level await cannot be. index.ts waits for it.
export const started = main();
