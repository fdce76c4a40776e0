// TokenReview (authentication.k8s.io v1 and v1beta1, create only, nothing stored): is this bearer token valid, and
// whose is it? Answered by the server's own token authenticators (authentication/authenticator.ts: static tokens,
// bootstrap tokens, service-account tokens), as the 1.9 registry asks its authenticator. Without authentication
// (the insecure port) no token is known.

import type { KubeObject } from '../api/meta.ts';
import { canonicalObject } from '../api/conversion.ts';
import { authenticateToken } from './authentication/authenticator.ts';
import { badRequest } from './errors.ts';
import type { ApiResult, ServerContext } from './context.ts';

export async function createTokenReview(ctx: ServerContext, obj: KubeObject): Promise<ApiResult> {
  const spec = (obj.spec ?? {}) as { token?: unknown };
  if (typeof spec.token !== 'string' || spec.token === '') throw badRequest('token is required for TokenReview in authentication');
  const cfg = ctx.security.authentication;
  const r = cfg ? await authenticateToken(spec.token, cfg, ctx.store) : { error: 'invalid bearer token' };
  const status: Record<string, unknown> = 'user' in r
    ? {
        authenticated: true,
        user: {
          username: r.user.name,
          ...(r.user.uid ? { uid: r.user.uid } : {}),
          groups: r.user.groups,
          ...(r.user.extra && Object.keys(r.user.extra).length ? { extra: r.user.extra } : {}),
        },
      }
    : { user: {}, error: r.error };
  return { code: 201, object: canonicalObject({ ...obj, metadata: { ...obj.metadata, creationTimestamp: null }, status } as KubeObject) };
}
