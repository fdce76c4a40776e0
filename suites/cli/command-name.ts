// How the user started the suites, for the help texts and the replay lines they print: `npx tsx suites` in this
// repository; the installed package's `cluster-conformance` command (lib/suites.ts) says so through the
// environment, so that what the help and a replay line show is what that user can type.
export const COMMAND: string = process.env.CLUSTER_CONFORMANCE_COMMAND || 'npx tsx suites';
