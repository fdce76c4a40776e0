// The controller daemon's controllers, feature gates and credential options (spec 1.9, 5, 8.2), checked on the
// daemon named by --daemon-cmd against a simulator of its own (never the target, like daemon-options):
// - which controllers a --controllers value selects (on by default: all but bootstrapsigner and tokencleaner),
//   as /configz and the daemon's start log show it. The log is read in the two wordings known (per-controller
//   lines 'Started "x"' / '"x" is disabled' / 'Skipping "x"' of the 1.9 daemon, or lists "enabled controllers:
//   ..." / "disabled controllers: ..."); a daemon whose output says neither is skipped with that reason;
// - every feature gate with the stage and default of the spec in --help, and all of them set to the other value
//   at once accepted and shown in /configz;
// - the client-config file option finds the API, --master overrides the file's address, the cloud credential
//   options are accepted: seen through a controller acting on the simulator (a new namespace gets its default
//   ServiceAccount from the serviceaccount controller).

//
// The checks are in daemon-controllers/, one file per area, imported here in the order they run (a check that
// mostly waits starts when its file loads): the environment (env.ts), controller selection, gates and client
// config (selection.ts), nodes, networking and the cloud (nodes.ts), identities and certificates
// (identities.ts), workloads, budgets, autoscaling and quotas (workloads.ts), volumes (volumes.ts).

import './daemon-controllers/selection.ts';
import './daemon-controllers/nodes.ts';
import './daemon-controllers/identities.ts';
import './daemon-controllers/workloads.ts';
import './daemon-controllers/volumes.ts';
