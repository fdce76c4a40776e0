// `npx tsx simulator proxy --kubeconfig FILE [--port N] [--address ADDR] [--api-prefix /] ...`: the client-side
// proxy as a command (kubectl proxy's flags and defaults where it has them). Exit status 2 on bad usage or an
// unusable client config.

import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ClientConfigError, parseKubeconfig } from '../client/kubeconfig.ts';
import { DEFAULT_ACCEPT_HOSTS, DEFAULT_REJECT_PATHS, startProxy } from './proxy.ts';

const HELP = `Usage: npx tsx simulator proxy --kubeconfig FILE [options]

Serves the API on plain HTTP on this machine, forwarding each request with the client config's credentials
(bearer token or client certificate, and its CA), watch streams included, like kubectl proxy.

Options:
  --kubeconfig FILE       client config (current context, or --context)
  --context NAME          context of the client config to use
  -p, --port N            port to listen on (default 8001; 0 picks a free port)
  --address ADDR          address to listen on (default 127.0.0.1)
  --api-prefix PATH       prefix to serve the API under (default /)
  --accept-hosts RE,...   Host headers accepted (default ${DEFAULT_ACCEPT_HOSTS.join(',')})
  --reject-paths RE,...   paths refused (default ${DEFAULT_REJECT_PATHS.join(',')})
  --reject-methods RE,... methods refused (default none)
  --accept-remote-clients serve clients on other machines too (default: loopback clients only)
  -h, --help              this help
`;

function regexps(flag: string, text: string | undefined, dflt: string[]): RegExp[] {
  const list = text === undefined ? dflt : text.split(',').filter((s) => s !== '');
  return list.map((s) => {
    try {
      return new RegExp(s);
    } catch (e) {
      throw new ClientConfigError(`${flag}: ${(e as Error).message}`);
    }
  });
}

export async function runProxyCommand(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        port: { type: 'string', short: 'p', default: '8001' },
        address: { type: 'string', default: '127.0.0.1' },
        'api-prefix': { type: 'string', default: '/' },
        'accept-hosts': { type: 'string' },
        'reject-paths': { type: 'string' },
        'reject-methods': { type: 'string' },
        'accept-remote-clients': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (e) {
    process.stderr.write(`proxy: ${(e as Error).message} (see --help)\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const usage = (msg: string) => {
    process.stderr.write(`proxy: ${msg}\n`);
    return 2;
  };
  if (!values.kubeconfig) return usage('--kubeconfig is required');
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) return usage(`invalid --port ${JSON.stringify(values.port)}: expected 0-65535`);
  let proxy;
  try {
    const file = values.kubeconfig;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      throw new ClientConfigError(`cannot read --kubeconfig ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    const cfg = parseKubeconfig(text, file, dirname(resolve(file)), values.context);
    proxy = await startProxy(cfg, {
      port,
      address: values.address,
      apiPrefix: values['api-prefix'],
      acceptHosts: regexps('--accept-hosts', values['accept-hosts'], DEFAULT_ACCEPT_HOSTS),
      rejectPaths: regexps('--reject-paths', values['reject-paths'], DEFAULT_REJECT_PATHS),
      rejectMethods: regexps('--reject-methods', values['reject-methods'], []),
      acceptRemote: values['accept-remote-clients'] === true,
      log: (line) => process.stderr.write(`proxy: ${line}\n`),
    });
  } catch (e) {
    return usage((e as Error).message);
  }
  process.stdout.write(`Starting to serve on ${proxy.url.replace(/^http:\/\//, '')}\n`);
  await new Promise<void>((resolveStop) => {
    const stop = () => void proxy.close().then(resolveStop);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return 0;
}
