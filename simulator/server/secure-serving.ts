// The security options of `npx tsx simulator` turned into what the API server runs with: TLS (given files, or
// with --secure a CA and serving certificate made at start), the authentication chain, the authorizer chain
// of --authorization-mode (with the RBAC bootstrap policy written at start), and the identities of the clients
// this process starts itself (the admin client config it writes, the controller daemon, the simulated nodes).
//
// Without any of these options nothing changes: plain HTTP, no authentication, no authorization (the real
// server's insecure port).

import { readFileSync } from 'node:fs';
import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import type { TlsOptions } from './app.ts';
import type { ServerContext } from './context.ts';
import type { SecurityContext } from './authorization/filter.ts';
import { alwaysAllow, alwaysDeny, privilegedGroups, unionAuthorizer, type Authorizer } from './authorization/authorizer.ts';
import { RbacAuthorizer } from './authorization/rbac.ts';
import { ensureBootstrapPolicy } from './authorization/bootstrap-policy.ts';
import { loadTokenFile } from './authentication/token-file.ts';
import { loadVerificationKeys, parsePemKeys } from './authentication/service-account.ts';
import { KUBE_CONTROLLER_MANAGER, KUBE_SCHEDULER, NODES_GROUP, SYSTEM_MASTERS, type UserInfo } from './authentication/user.ts';
import type { SecurityOptions } from './security-flags.ts';

export const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'RBAC'] as const;

export interface SecurityFlags extends SecurityOptions {
  /** The listen address, for the serving certificate's SANs. */
  host: string;
}

/** Credentials of a client this process starts: a client certificate (TLS) or a bearer token. */
export type Credentials = { cert: string; key: string } | { token: string };

export interface SecureServing {
  /** Undefined: plain HTTP. */
  tls?: TlsOptions;
  security: SecurityContext;
  postStart?: (ctx: ServerContext) => Promise<void>;
  /** CA bundle clients verify the server with (TLS only). */
  ca?: string;
  /** When false, none of the options was given: the insecure-port behaviour. */
  enabled: boolean;
  admin?: Credentials;
  controllerManager?: Credentials;
  /** The simulated kubelets and scheduler (one client identity: system:kube-scheduler in system:nodes). */
  nodes?: Credentials;
  /**
   * With --secure: the CA made at start, certificate and key, which the in-process daemon also signs approved
   * CertificateSigningRequests with (--cluster-signing-cert-file/--cluster-signing-key-file), as a kubeadm
   * cluster's controller manager signs with the cluster CA.
   */
  signingCa?: { cert: string; key: string };
  /** PEM private key the daemon signs service-account tokens with (made when no --service-account-key-file is given). */
  serviceAccountSigningKey?: string;
  /**
   * Options for the in-process daemon: with RBAC each controller runs under its own service account
   * (--use-service-account-credentials), as the real deployments of 1.9 run it, so that the
   * system:controller:* roles decide what each may do.
   */
  daemonArgs: string[];
  /** What to say at start, one line each. */
  notes: string[];
  stop(): void;
}

export class SecurityOptionsError extends Error {}

function readPem(path: string, flag: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new SecurityOptionsError(`cannot read ${flag} ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

export function parseAuthorizationModes(text: string): string[] {
  const modes = text.split(',').map((m) => m.trim());
  for (const m of modes) {
    if (!(AUTHORIZATION_MODES as readonly string[]).includes(m))
      throw new SecurityOptionsError(`--authorization-mode: unknown mode ${JSON.stringify(m)} (known: ${AUTHORIZATION_MODES.join(', ')})`);
  }
  if (new Set(modes).size !== modes.length) throw new SecurityOptionsError(`--authorization-mode: ${JSON.stringify(text)} lists a mode twice`);
  return modes;
}

/** A key for the daemon to sign service-account tokens with (PEM, PKCS#8): EC P-256, made in milliseconds. */
export function newServiceAccountSigningKey(): string {
  return generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
}

export async function buildSecureServing(f: SecurityFlags): Promise<SecureServing> {
  const modes = parseAuthorizationModes(f.authorizationMode ?? 'AlwaysAllow');
  if (Boolean(f.tlsCertFile) !== Boolean(f.tlsPrivateKeyFile)) throw new SecurityOptionsError('--tls-cert-file and --tls-private-key-file go together');
  if (f.secure && f.tlsCertFile)
    throw new SecurityOptionsError('--secure makes its own serving certificate; give either it or --tls-cert-file/--tls-private-key-file');
  const enabled = Boolean(
    f.secure ||
    f.tlsCertFile ||
    f.clientCaFile ||
    f.tokenAuthFile ||
    f.serviceAccountKeyFile ||
    f.anonymousAuth !== undefined ||
    f.enableBootstrapTokenAuth ||
    f.serviceAccountLookup !== undefined ||
    modes.join(',') !== 'AlwaysAllow',
  );
  const rbac = modes.includes('RBAC') ? new RbacAuthorizer() : undefined;
  const chain: Authorizer[] = [];
  if (rbac) chain.push(privilegedGroups);
  for (const m of modes) chain.push(m === 'RBAC' ? rbac! : m === 'AlwaysDeny' ? alwaysDeny : alwaysAllow);
  const authorizer = unionAuthorizer(chain);
  const postStart = rbac
    ? async (ctx: ServerContext) => {
      const created = await ensureBootstrapPolicy(ctx.store);
      await rbac.start(ctx.store);
      notes.push(`RBAC: ${created} default roles and bindings created`);
    }
    : undefined;
  const notes: string[] = [];
  if (!enabled) {
    return { security: { authorizer }, enabled, notes, postStart, daemonArgs: [], stop: () => rbac?.stop() };
  }

  const tokens = f.tokenAuthFile ? loadTokenFile(f.tokenAuthFile) : new Map<string, UserInfo>();
  let saKeys: KeyObject[] | undefined = f.serviceAccountKeyFile ? loadVerificationKeys(f.serviceAccountKeyFile) : undefined;
  let serviceAccountSigningKey: string | undefined;
  if (!saKeys) {
    // The daemon signs service-account tokens with the private half; the server verifies with the public half.
    serviceAccountSigningKey = newServiceAccountSigningKey();
    saKeys = parsePemKeys(serviceAccountSigningKey);
  }

  let tls: TlsOptions | undefined;
  let ca: string | undefined;
  const clientCas: string[] = [];
  if (f.clientCaFile) clientCas.push(readPem(f.clientCaFile, '--client-ca-file'));
  let admin: Credentials | undefined;
  let controllerManager: Credentials | undefined;
  let nodes: Credentials | undefined;
  let signingCa: SecureServing['signingCa'];
  if (f.secure || f.tlsCertFile) {
    const { createCertificateAuthority, servingNames } = await import('./tls/certs.ts');
    // The CA of this process's own clients (admin, daemon, nodes); with --secure it also signs the serving certificate.
    const own = await createCertificateAuthority(`simulator-ca@${Math.floor(Date.now() / 1000)}`);
    clientCas.push(own.cert);
    if (f.secure) {
      const serving = await own.sign({ commonName: 'kube-apiserver', serving: servingNames(f.host) });
      tls = { cert: serving.cert, key: serving.key };
      ca = own.cert;
      signingCa = { cert: own.cert, key: own.key };
    } else {
      tls = { cert: readPem(f.tlsCertFile!, '--tls-cert-file'), key: readPem(f.tlsPrivateKeyFile!, '--tls-private-key-file') };
    }
    tls.clientCa = clientCas.join('');
    admin = await own.sign({ commonName: 'kubernetes-admin', organizations: [SYSTEM_MASTERS], client: true });
    controllerManager = await own.sign({ commonName: KUBE_CONTROLLER_MANAGER, client: true });
    nodes = await own.sign({ commonName: KUBE_SCHEDULER, organizations: [NODES_GROUP], client: true });
    notes.push(
      f.secure
        ? 'TLS: serving certificate made at start for ' + [...servingNames(f.host).dnsNames, ...servingNames(f.host).ips].join(', ')
        : `TLS: serving certificate ${f.tlsCertFile}`,
    );
  } else {
    if (f.clientCaFile) throw new SecurityOptionsError('--client-ca-file needs TLS (--secure or --tls-cert-file/--tls-private-key-file)');
    // Plain HTTP with authentication: this process's own clients use bearer tokens (like the real server's loopback token).
    const mint = (user: UserInfo): Credentials => {
      const token = randomBytes(24).toString('base64url');
      tokens.set(token, user);
      return { token };
    };
    admin = mint({ name: 'kubernetes-admin', uid: '', groups: [SYSTEM_MASTERS] });
    controllerManager = mint({ name: KUBE_CONTROLLER_MANAGER, uid: '', groups: [] });
    nodes = mint({ name: KUBE_SCHEDULER, uid: '', groups: [NODES_GROUP] });
    notes.push('WARNING: authentication over plain HTTP: credentials travel in the clear (use --secure)');
  }
  notes.push(
    `authentication: ${[tls?.clientCa ? 'x509 client certificates' : '', tokens.size ? 'bearer tokens' : '', 'service-account tokens', f.anonymousAuth === false ? '' : 'anonymous'].filter(Boolean).join(', ')}`,
  );
  notes.push(`authorization: ${modes.join(',')}`);
  const security: SecurityContext = {
    authentication: {
      clientCa: Boolean(tls?.clientCa),
      tokens,
      serviceAccountKeys: saKeys,
      serviceAccountLookup: f.serviceAccountLookup ?? true,
      anonymous: f.anonymousAuth !== false,
      bootstrapTokens: f.enableBootstrapTokenAuth === true,
    },
    authorizer,
  };
  const daemonArgs = rbac ? ['--use-service-account-credentials=true'] : [];
  return {
    tls, security, postStart, ca, enabled, admin, controllerManager, nodes, signingCa, serviceAccountSigningKey, daemonArgs, notes,
    stop: () => rbac?.stop(),
  };
}
