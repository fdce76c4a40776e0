// cluster-simulator [options] (in the repository: npx tsx simulator [options])
// The command line over launch/index.ts: turns the flags into startSimulator's options (the same names), starts
// the cluster (API server, controller daemon, nodes) and prints its URL, the client config it wrote and an
// `export KUBECONFIG=` line; SIGINT and SIGTERM stop it (saving --snapshot-save, removing the client config).

import { parseArgs } from 'node:util';
import { STORAGE_HELP, STORAGE_OPTIONS } from './storage/etcd-cli.ts';
import { DEFAULT_CLI_PORT, launchSimulator, SimulatorError, versionText, type LaunchedSimulator, type SimulatorOptions } from './launch/index.ts';

const HELP = `Usage:
  cluster-simulator [options]            (in the repository: npx tsx simulator [options])
  cluster-simulator proxy [options]

Starts the reference API server (core/v1, apps/v1, batch/v1, batch/v1beta1, extensions/v1beta1), the controller
daemon (namespace, garbage collector, service accounts, Deployments, ...) and three simulated nodes, and writes a
client config for kubectl.

Options:
  --port N                    port to listen on (default ${DEFAULT_CLI_PORT}; 0 picks a free port). Not 8080, where
                              kubectl sends requests when it has no client config
  --host ADDR                 address to listen on (default 127.0.0.1)
  --kubeconfig-out FILE       write the client config here and keep it (default: a private temporary directory,
                              removed on exit); context, cluster and user are named simulator-PORT
  --kubeconfig-merge          also add the context to your kubeconfig ($KUBECONFIG's first file, else
                              ~/.kube/config) and make it current; taken out again on exit
  --load PATH                 create the objects of these manifests at start (YAML or JSON, several documents
                              per file; a directory: every .yaml, .yml, .json in it), Namespaces and
                              CustomResourceDefinitions first (repeatable)
  --snapshot-load FILE        start from a snapshot (every object and the revision counter; memory storage)
  --snapshot-save FILE        save a snapshot on exit (memory storage)
  --vendor WORD               the {vendor} word of media types (default kubernetes)
  --continue-ttl DURATION     lifetime of continue tokens, Go duration syntax (default 5m0s)
  --watch-history-events N    changes kept for watch resumption (default 1000)
  --watch-history-age DURATION  age of changes kept for watch resumption (default 5m0s)
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
  --scheduler-api-qps QPS     the simulated scheduler's client limits toward the API, as kube-scheduler's
  --scheduler-api-burst N     --kube-api-qps/--kube-api-burst (default 50 and 100, 1.9's; a negative qps: no limit)
  --kubelet-api-qps QPS       each simulated kubelet's client limits, as the kubelet's --kube-api-qps/
  --kubelet-api-burst N       --kube-api-burst (default 5 and 10, 1.9's; a negative qps: no limit). Scale tests
                              (hundreds of nodes, thousands of pods): --scheduler-api-qps=-1 --kubelet-api-qps=-1
                              --daemon-arg=--x-api-qps=100000 --daemon-arg=--x-api-burst=100000
  --single-thread             run the controller daemon and the nodes in the API server's thread (default: a
                              worker thread of their own, so that a second core does their work)
  --container-config FILE     what the simulated containers do (YAML/JSON: scripted exec answers, files, port
                              forwards, log files, usage; simulator/nodes/README.md "Containers"); annotations win
  --local-exec DIR            exec runs the command as a REAL PROCESS ON THIS HOST (your user, your files), in
                              DIR/<namespace>/<pod>/<container>; off by default (built-in commands instead)
  --daemon-arg ARG            an option for the in-process daemon, e.g. --daemon-arg=--concurrent-gc-syncs=5
                              (repeatable; see npx tsx simulator/controllers --help). The daemon runs with
                              --allocate-node-cidrs --cluster-cidr=10.244.0.0/16 unless these say otherwise
  -v, --v N                   log verbosity (glog levels, default 0); at 3 or more the API server logs every
                              request on stderr, as the real server's httplog: method and URI, latency, status,
                              user agent, client address and the user it was attributed to
  --version                   print the version and the Kubernetes API version simulated
  -h, --help                  this help

Security options (none given: plain HTTP without authentication or authorization, like the real insecure port):
  --secure                    serve HTTPS with a CA and serving certificate made at start (SANs: the listen
                              address, localhost, 127.0.0.1); the client config written carries the CA and an
                              admin client certificate (O=system:masters); the daemon signs approved
                              CertificateSigningRequests with that CA
  --tls-cert-file FILE        serve HTTPS with this certificate (PEM) ...
  --tls-private-key-file FILE ... and this key
  --client-ca-file FILE       accept client certificates signed by these CAs (user = CN, groups = O)
  --token-auth-file FILE      static bearer tokens, CSV: token,user,uid,"group1,group2"
  --service-account-key-file FILE  PEM keys that verify service-account tokens (default: a key made at start,
                              whose private half the in-process daemon signs with)
  --service-account-lookup BOOL    refuse tokens whose ServiceAccount or Secret is gone (default true)
  --anonymous-auth BOOL       requests without credentials are system:anonymous (default true)
  --runtime-config LIST       group versions served or not, the real flag (batch/v2alpha1=true, api/all=true,
                              apiextensions.k8s.io/v1=false; default: 1.9's GA and beta group versions)
  --admission-control LIST    admission plugins in order, the real flag (default: 1.9's recommended list;
                              add PodSecurityPolicy to enforce policies)
  --enable-bootstrap-token-auth   accept bootstrap tokens (Secrets bootstrap-token-<id> in kube-system)
  --authorization-mode MODES  comma list of AlwaysAllow, AlwaysDeny, RBAC (default AlwaysAllow); RBAC writes
                              the default 1.9 roles and bindings at start

Commands:
  proxy --kubeconfig FILE [--port N] [--api-prefix /]   a client-side proxy (like kubectl proxy)

Exit status: 0 after SIGINT or SIGTERM, 2 for a bad option or a failed start, 1 when the controller daemon and
nodes fail after the start (their thread ends).
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

function parseNumber(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(v)) fail(`invalid ${flag} ${JSON.stringify(v)}: expected a number`);
  return Number(v);
}

function parseCount(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v)) fail(`invalid ${flag} ${JSON.stringify(v)}: expected an integer`);
  return Number(v);
}

/** How long after the API server listens the in-process daemon and nodes start (see startSimulator's clientsBehind). */
const CLIENTS_AFTER_MS = 50;

/** The flags as startSimulator's options, which have the same names in camelCase and check the values. */
function optionsOf(values: Record<string, string | boolean | string[] | undefined>): SimulatorOptions {
  const str = (k: string) => values[k] as string | undefined;
  return {
    port: parseCount('--port', str('port')),
    host: str('host'),
    vendor: str('vendor'),
    continueTtl: str('continue-ttl'),
    watchHistoryEvents: parseCount('--watch-history-events', str('watch-history-events')),
    watchHistoryAge: str('watch-history-age'),
    kubeconfigOut: str('kubeconfig-out'),
    kubeconfigMerge: values['kubeconfig-merge'] === true,
    receiveTimeout: str('receive-timeout'),
    storage: str('storage') as SimulatorOptions['storage'],
    etcdServers: str('etcd-servers'),
    etcdPrefix: str('etcd-prefix'),
    noControllers: values['no-controllers'] === true,
    nodes: parseCount('--nodes', str('nodes')),
    zones: parseCount('--zones', str('zones')),
    nodeStatusUpdateFrequency: str('node-status-update-frequency'),
    schedulerApiQps: parseNumber('--scheduler-api-qps', str('scheduler-api-qps')),
    schedulerApiBurst: parseCount('--scheduler-api-burst', str('scheduler-api-burst')),
    kubeletApiQps: parseNumber('--kubelet-api-qps', str('kubelet-api-qps')),
    kubeletApiBurst: parseCount('--kubelet-api-burst', str('kubelet-api-burst')),
    singleThread: values['single-thread'] === true,
    daemonArg: values['daemon-arg'] as string[] | undefined,
    containerConfig: str('container-config'),
    localExec: str('local-exec'),
    secure: values.secure === true,
    tlsCertFile: str('tls-cert-file'),
    tlsPrivateKeyFile: str('tls-private-key-file'),
    clientCaFile: str('client-ca-file'),
    tokenAuthFile: str('token-auth-file'),
    serviceAccountKeyFile: str('service-account-key-file'),
    serviceAccountLookup: parseBool('--service-account-lookup', str('service-account-lookup')),
    anonymousAuth: parseBool('--anonymous-auth', str('anonymous-auth')),
    authorizationMode: str('authorization-mode'),
    enableBootstrapTokenAuth: values['enable-bootstrap-token-auth'] === true,
    runtimeConfig: values['runtime-config'] as string[] | undefined,
    admissionControl: str('admission-control'),
    v: parseCount('--v', str('v')),
    load: values.load as string[] | undefined,
    snapshotLoad: str('snapshot-load'),
    snapshotSave: str('snapshot-save'),
    log: (line) => process.stderr.write(`${glogPrefix()}${line}\n`),
  };
}

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
        port: { type: 'string' },
        host: { type: 'string' },
        vendor: { type: 'string' },
        'continue-ttl': { type: 'string' },
        'watch-history-events': { type: 'string' },
        'watch-history-age': { type: 'string' },
        'kubeconfig-out': { type: 'string' },
        'kubeconfig-merge': { type: 'boolean' },
        'receive-timeout': { type: 'string' },
        ...STORAGE_OPTIONS,
        'no-controllers': { type: 'boolean' },
        nodes: { type: 'string' },
        zones: { type: 'string' },
        'node-status-update-frequency': { type: 'string' },
        'scheduler-api-qps': { type: 'string' },
        'scheduler-api-burst': { type: 'string' },
        'kubelet-api-qps': { type: 'string' },
        'kubelet-api-burst': { type: 'string' },
        'single-thread': { type: 'boolean' },
        'daemon-arg': { type: 'string', multiple: true },
        'container-config': { type: 'string' },
        'local-exec': { type: 'string' },
        secure: { type: 'boolean' },
        'tls-cert-file': { type: 'string' },
        'tls-private-key-file': { type: 'string' },
        'client-ca-file': { type: 'string' },
        'token-auth-file': { type: 'string' },
        'service-account-key-file': { type: 'string' },
        'service-account-lookup': { type: 'string' },
        'anonymous-auth': { type: 'string' },
        'authorization-mode': { type: 'string' },
        'enable-bootstrap-token-auth': { type: 'boolean' },
        'runtime-config': { type: 'string', multiple: true },
        'admission-control': { type: 'string' },
        load: { type: 'string', multiple: true },
        'snapshot-load': { type: 'string' },
        'snapshot-save': { type: 'string' },
        v: { type: 'string', short: 'v' },
        version: { type: 'boolean' },
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
  if (values.version) {
    process.stdout.write(versionText('cluster-simulator'));
    return;
  }
  // The daemon's and nodes' thread failing after the start ends the command (status 1) rather than leaving an API
  // server without its controllers; set to a clean stop once the simulator is up.
  let clientsFailed = (e: Error): void => {
    process.stderr.write(`simulator: the controller daemon and nodes failed: ${e.stack ?? e.message}\n`);
    process.exit(1);
  };
  let sim: LaunchedSimulator;
  try {
    sim = await launchSimulator({ ...optionsOf(values), onError: (e) => clientsFailed(e) }, {
      port: DEFAULT_CLI_PORT,
      // The daemon and the nodes start a moment after the API server listens: a client already waiting for it (a
      // harness polling /api, kubectl) is answered first, not after the 150-200 ms of event loop their start takes.
      clientsAfterMs: CLIENTS_AFTER_MS,
    });
  } catch (e) {
    fail(e instanceof SimulatorError ? e.message : `cannot start: ${(e as Error).message}`);
  }
  // Every stop path removes the client config (launch/index.ts), also on SIGINT and SIGTERM (below) and on exit.
  let stopping = false;
  const stop = async (signal: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`${signal}: shutting down\n`);
    // Closing waits for open requests; a watch held by an outside client (a daemon, kubectl get -w) would
    // keep it waiting for minutes, so the process ends after a short grace period regardless (the exit handler
    // still removes the client config).
    setTimeout(() => process.exit(code), 3_000).unref();
    try {
      await sim.stop();
    } catch (e) {
      process.stderr.write(`simulator: ${(e as Error).message}\n`);
      process.exit(1);
    }
    process.exit(code);
  };
  clientsFailed = (e) => {
    process.stderr.write(`simulator: the controller daemon and nodes failed: ${e.stack ?? e.message}\n`);
    void stop('error', 1);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  // The client config exists (written by launchSimulator) before the URL is printed: a kubectl started on the
  // first line of output never finds it missing.
  const { serving } = sim;
  process.stdout.write(`API server listening on ${sim.url}\n`);
  if (!serving.enabled) process.stdout.write('security: plain HTTP, no authentication, no authorization (see --secure and --authorization-mode)\n');
  for (const note of serving.notes) process.stdout.write(`${note}\n`);
  if (sim.storage.storage === 'etcd') process.stdout.write(`storage: etcd at ${sim.storage.servers.join(',')} under ${sim.storage.prefix}/\n`);
  if (values.load) process.stdout.write(`loaded: ${sim.loaded} objects from ${values.load.join(', ')}\n`);
  process.stdout.write(`client config: ${sim.kubeconfigPath} (context ${sim.context}${values['kubeconfig-out'] ? '' : '; removed on exit'})\n`);
  if (sim.mergedInto) process.stdout.write(`merged into ${sim.mergedInto} as the current context ${sim.context} (taken out on exit)\n`);
  process.stdout.write(`export KUBECONFIG=${shellQuote(sim.kubeconfigPath)}\n`);
  process.stdout.write(`try: kubectl --kubeconfig ${shellQuote(sim.kubeconfigPath)} get namespaces\n`);
  process.stdout.write(`nodes: ${sim.nodeNames.length ? sim.nodeNames.join(', ') : 'none (--nodes 0)'}\n`);
  if (sim.daemonUrl) process.stdout.write(`controller daemon: ${sim.daemonUrl}/configz (log on stderr)\n`);
  else process.stdout.write(`controller daemon: not running (--no-controllers); start one with: npx tsx simulator/controllers --master ${sim.url}\n`);
}

/** A path as one shell word (single quotes unless it has only safe characters). */
function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
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
