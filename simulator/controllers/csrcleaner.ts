// The CSR cleaner (1.9 csrcleaner): once at start and then every hour, deletes requests that are done with —
// approved more than an hour ago, denied more than an hour ago (by their condition's lastUpdateTime), pending for
// more than a day (by creation time), or whose issued certificate has expired. Ages are the real controller's.

import { X509Certificate } from 'node:crypto';
import type { KubeObject } from '../api/meta.ts';
import { APPROVED, DENIED, conditionsOf } from '../api/kinds/certificates.ts';
import { ApiError } from '../client/api-client.ts';
import type { Controller, ControllerContext } from './kit/controller.ts';
import { sleep } from '../client/timers.ts';
import { RESOURCE } from '../client/resource-paths.ts';

const HOUR = 3600_000;
export const APPROVED_EXPIRATION_MS = HOUR;
export const DENIED_EXPIRATION_MS = HOUR;
export const PENDING_EXPIRATION_MS = 24 * HOUR;
export const POLLING_INTERVAL_MS = HOUR;

/** Why the request is due for deletion, or undefined. */
export function cleanupReason(csr: KubeObject, now = Date.now()): string | undefined {
  const conds = conditionsOf(csr);
  const older = (c: { lastUpdateTime?: string | null } | undefined, ms: number) => !!c?.lastUpdateTime && now - Date.parse(c.lastUpdateTime) > ms;
  const approved = conds.find((c) => c.type === APPROVED);
  const denied = conds.find((c) => c.type === DENIED);
  if (approved && older(approved, APPROVED_EXPIRATION_MS)) return 'approved more than an hour ago';
  if (denied && older(denied, DENIED_EXPIRATION_MS)) return 'denied more than an hour ago';
  if (!approved && !denied && csr.metadata.creationTimestamp && now - Date.parse(csr.metadata.creationTimestamp) > PENDING_EXPIRATION_MS) return 'pending for more than a day';
  const cert = (csr.status as { certificate?: string } | undefined)?.certificate;
  if (cert) {
    try {
      if (Date.parse(new X509Certificate(Buffer.from(cert, 'base64')).validTo) < now) return 'its certificate has expired';
    } catch {
      // not a certificate we can read: leave it
    }
  }
  return undefined;
}

export class CSRCleaner implements Controller {
  readonly name = 'csrcleaner';
  readonly stats = { deleted: 0 };
  constructor(private readonly intervalMs = POLLING_INTERVAL_MS) {}

  async run(ctx: ControllerContext): Promise<void> {
    while (!ctx.signal.aborted) {
      try {
        const list = await ctx.client.list(RESOURCE.certificateSigningRequests.collection(), undefined, ctx.signal);
        for (const csr of list.items) {
          const why = cleanupReason(csr);
          if (!why) continue;
          try {
            await ctx.client.delete(RESOURCE.certificateSigningRequests.named(csr.metadata.name!), { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: csr.metadata.uid } }, ctx.signal);
            this.stats.deleted++;
            ctx.log(`deleted csr ${csr.metadata.name}: ${why}`);
          } catch (err) {
            if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) throw err;
          }
        }
      } catch (err) {
        if (!ctx.signal.aborted) ctx.log(`csrcleaner: ${(err as Error).message}`);
      }
      await sleep(this.intervalMs, ctx.signal);
    }
  }
}

export const csrCleanerController = (): Controller => new CSRCleaner();
