// The Python `kubernetes` client's exec and port-forward (WebSocket) against the simulator: python/streams.py runs
// the scenarios of the client's own e2e tests test_pod_apis, test_exit_code and test_portforward_http, plus an
// echo through a declared port; each check is reported here as its own test (simulator/testing/python-checks.ts).

import { pythonChecks } from '../testing/python-checks.ts';

pythonChecks('exec and port-forward', 'streams.py', 'pystreams', ['exec_pod_apis', 'exec_exit_codes', 'exec_stdout_and_status', 'portforward_http', 'portforward_declared_port_echo'], {
  // The namespace's default ServiceAccount, which test_pod_apis waits for, and its token, without which the
  // ServiceAccount admission plugin (on where controllers run) refuses pods: the two controllers that make them.
  controllers: ['serviceaccount', 'serviceaccount-token'],
  nodes: { count: 1, startMs: 50, log: () => {} },
});
