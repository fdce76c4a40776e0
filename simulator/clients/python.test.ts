// The Python `kubernetes` client (Debian's python3-kubernetes) against the simulator: python/matrix.py runs every
// check in one interpreter (its start-up costs a second) against a simulator with the controller daemon and one
// node (so pods, ReplicaSets and events have their full shapes) and a small watch history (so a 410 can be
// forced), through the client config the simulator writes. Each check is reported here as its own test
// (simulator/testing/python-checks.ts).

import { pythonChecks } from '../testing/python-checks.ts';

pythonChecks(
  'against the simulator',
  'matrix.py',
  'python',
  [
    'version_endpoint',
    'list_with_limit_and_continue',
    'watch_stream_from_resource_version',
    'watch_stream_forced_410',
    'replace_config_map',
    'replace_deployment',
    'patch_strategic_and_json',
    'delete_with_orphan_dependents_false',
    'field_selectors',
    'every_response_deserialises_into_models',
    'kinds_added_for_1_9',
  ],
  { controllers: true, nodes: { count: 1, startMs: 50, log: () => {} }, watchHistoryEvents: 20, watchHistoryAgeMs: 1 },
);
