// Where a Service's traffic goes, for the calls the API server makes itself (admission webhooks, aggregated
// APIs): the Service's port (443 for both in 1.9), then the address and port of its Endpoints behind it, as
// 1.9's endpoint-routing resolver does; cluster IPs carry no traffic in the simulator, so the Endpoints are the
// only way in. An ExternalName Service resolves to its name. The failures carry the reasons and messages of
// 1.9's APIService availability controller.

import type { ServerContext } from './context.ts';
import { getStored, STORAGE_REFS } from './registry/storage.ts';

export type ServiceResolution =
  | { ok: true; host: string; port: number }
  | { ok: false; reason: 'ServiceNotFound' | 'ServicePortError' | 'EndpointsNotFound' | 'MissingEndpoints'; message: string };

interface ServicePort { port?: number; name?: string }
interface ServiceSpec { type?: string; externalName?: string; ports?: ServicePort[] }
interface Subset { addresses?: Array<{ ip: string }>; ports?: Array<{ port: number; name?: string }> }

/** An IPv6 address in brackets, as in a URL's authority. */
export const hostOfUrl = (host: string) => (host.includes(':') ? `[${host}]` : host);

/**
 * The address behind a Service's port `port`. `anyPort`: a Service without that port is reached on its first
 * (the webhook caller's leniency); otherwise such a Service is a ServicePortError.
 */
export async function resolveService(ctx: ServerContext, namespace: string, name: string, port: number, anyPort = false): Promise<ServiceResolution> {
  const where = `service/${name} in "${namespace}"`;
  const service = await getStored(ctx, STORAGE_REFS.services, namespace, name);
  if (!service) return { ok: false, reason: 'ServiceNotFound', message: `${where} is not present` };
  const spec = (service.value.spec ?? {}) as ServiceSpec;
  if (spec.type === 'ExternalName' && spec.externalName) return { ok: true, host: spec.externalName, port };
  const servicePort = (spec.ports ?? []).find((p) => p.port === port) ?? (anyPort ? spec.ports?.[0] : undefined);
  if (!servicePort) return { ok: false, reason: 'ServicePortError', message: `${where} is not listening on port ${port}` };
  const endpoints = await getStored(ctx, STORAGE_REFS.endpoints, namespace, name);
  if (!endpoints) return { ok: false, reason: 'EndpointsNotFound', message: `cannot find endpoints for ${where}` };
  for (const subset of ((endpoints.value as { subsets?: Subset[] }).subsets ?? [])) {
    const address = subset.addresses?.[0];
    const byName = subset.ports?.find((p) => servicePort.name === undefined || p.name === servicePort.name);
    const epPort = byName ?? (subset.ports?.length === 1 ? subset.ports[0] : undefined);
    if (address && epPort) return { ok: true, host: address.ip, port: epPort.port };
  }
  return { ok: false, reason: 'MissingEndpoints', message: `endpoints for ${where} have no addresses` };
}
