// The authorizer seam of the API server: who the requesting user is and whether a request is allowed. The
// access-review endpoints (access-review.ts) answer from it; request authorization and RBAC plug in here (an
// implementation of `Authorizer` passed as ApiServerOptions.authorizer). Without one every request is allowed,
// as a real server with --authorization-mode=AlwaysAllow.

/** The user a request runs as (the real server's user.Info). */
export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/**
 * What is asked (the real server's authorizer.Attributes). Resource requests name the verb (get, list, watch,
 * create, update, patch, delete, deletecollection; or any other word an access review asks about) and the
 * resource; non-resource requests the path and the lower-case HTTP verb.
 */
export interface AuthorizationAttributes {
  user: UserInfo;
  verb: string;
  resourceRequest: boolean;
  namespace?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  /** Non-resource requests: the URL path (e.g. /healthz, /api). */
  path?: string;
}

/** Allow and Deny are final; NoOpinion lets the next authorizer of a chain decide (and denies at its end). */
export type Decision = 'Allow' | 'Deny' | 'NoOpinion';

export interface AuthorizationResult {
  decision: Decision;
  /** Why, for the user (an access review's status.reason; a 403's message). */
  reason?: string;
  /** An error met while deciding (an access review's status.evaluationError). */
  evaluationError?: string;
}

export interface Authorizer {
  authorize(attrs: AuthorizationAttributes): AuthorizationResult | Promise<AuthorizationResult>;
}

/** --authorization-mode=AlwaysAllow: what the server uses when no authorizer is configured. */
export const allowAll: Authorizer = {
  authorize: () => ({ decision: 'Allow' }),
};

/**
 * The user of a request that no authenticator identified: on the real server's insecure port that is
 * "system:unsecured" in system:masters (1.9 insecure handler); authentication replaces it per request.
 */
export const UNSECURED_USER: UserInfo = Object.freeze({ name: 'system:unsecured', groups: ['system:masters', 'system:authenticated'] }) as UserInfo;
