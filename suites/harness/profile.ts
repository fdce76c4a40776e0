// Profiles: which kind of system a run certifies, and so which checks (and spec rows) it must verify.
//
//   api      the API server alone (as envtest runs it): no controller, no node.
//   cluster  API server, controller daemon and nodes together (a real cluster; the default against --target).
//   daemon   the controller daemon under test (--daemon-cmd) against simulators the checks start themselves.
//
// Every check belongs to exactly one profile. It says so on its definition (`profile`, `needs`, below) or gets the
// profile its suite file and needs imply (`profileOf`). A run selects the checks of its profiles; the rows of the
// other profiles are "not applicable" in every report, never passed.

export const PROFILES = ['api', 'cluster', 'daemon'] as const;
export type Profile = (typeof PROFILES)[number];

/**
 * What a check needs of the target beyond its API (the `cluster` profile). The names are the controller daemon's
 * loop names as `--controllers` takes them (`deployment`, `replicaset`, `job`, `cronjob`, `daemonset`,
 * `statefulset`, `endpoint`, `namespace`, `garbagecollector`, `serviceaccount`, ...), so that a check that sees
 * nothing move can name the loop it waited for, and a test can switch exactly that loop off.
 */
export interface CheckNeeds {
  /** Controller loops the check waits to see act. */
  controllers?: readonly string[];
  /** Nodes that run pods (their kubelets give pods status): at least this many. */
  nodes?: number;
}

/** The declaration a check may carry (fields of CheckMeta in check.ts). */
export interface ProfileDeclaration {
  /** Default: `daemon` for the daemon-* suite files, `cluster` when `needs` names a controller or nodes, else `api`. */
  profile?: Profile;
  needs?: CheckNeeds;
}

/** The profile of a check: its own declaration, else what its suite file and needs imply. */
export function profileOf(check: ProfileDeclaration & { suite: string }): Profile {
  if (check.profile) return check.profile;
  if (check.suite.startsWith('daemon-')) return 'daemon';
  if ((check.needs?.controllers?.length ?? 0) > 0 || (check.needs?.nodes ?? 0) > 0) return 'cluster';
  return 'api';
}

/**
 * The checks a profile runs. `cluster` certifies a whole cluster, its API server included, so it runs the `api`
 * checks too; `api` and `daemon` run their own only.
 */
export function profileRuns(profile: Profile, checkProfile: Profile): boolean {
  return profile === checkProfile || (profile === 'cluster' && checkProfile === 'api');
}

/** The profiles of a run: the one asked for; without one, all three for the embedded simulator, else `cluster`. */
export function runProfiles(asked: Profile | undefined, embedded: boolean): Profile[] {
  if (asked) return [asked];
  return embedded ? [...PROFILES] : ['cluster'];
}

/** How a run's profiles are printed: `cluster`, or `api+cluster+daemon` for the embedded run. */
export function profileLabel(profiles: readonly Profile[]): string {
  return PROFILES.filter((p) => profiles.includes(p)).join('+');
}

/** Whether a run of these profiles runs a check of that profile. */
export function runsCheck(profiles: readonly Profile[], checkProfile: Profile): boolean {
  return profiles.some((p) => profileRuns(p, checkProfile));
}

/**
 * The failure of a controller-dependent check that saw nothing move: in a cluster a loop that never acts is a
 * broken cluster, not a reason to skip. Thrown by `ctx.nothingMoved` (check.ts); the message names the loop, what
 * was waited for and the rows the check verifies, so a gate's log says which controller is missing.
 */
export class NothingMovedError extends Error {
  override name = 'NothingMovedError';
  constructor(
    readonly controller: string,
    readonly detail: string,
    readonly rows: readonly string[],
  ) {
    super(`${controller} controller: nothing moved: ${detail} (rows ${rows.join(', ')} need it; profile cluster)`);
  }
}
