// The CSR signing controller (1.9 csrsigning, local signer): an approved, not denied request without a
// certificate gets one issued by the CA of --cluster-signing-cert-file / --cluster-signing-key-file, written to
// status.certificate through /status. The certificate carries the request's subject, SANs and public key, the
// requested key usages and extended key usages, CA:false, the CA's key identifier, a random serial, and is valid
// from five minutes ago (clock skew, as the real signer backdates) for --experimental-cluster-signing-duration
// (or the request's spec.expirationSeconds when shorter). A request that cannot be signed (unknown usage, a
// request that no longer parses) gets a Failed condition with the reason, and is not retried; nothing crashes.
// Requests for a signer other than the kubernetes.io ones (v1 signerName) are left to that signer.
// X.509 building is @peculiar/x509's (simulator/api/pkcs10.ts loads it on first use); keys are node:crypto's WebCrypto.

import { randomBytes, webcrypto, type KeyObject } from 'node:crypto';
import type { KubeObject } from '../api/meta.ts';
import { x509 as loadX509, type X509 } from '../api/pkcs10.ts';
import { FAILED, conditionsOf, isApproved, isDenied, isFailed, parseRequest } from '../api/kinds/certificates.ts';
import { ApiError } from '../client/api-client.ts';
import { WorkQueue, runWorkers } from '../client/work-queue.ts';
import type { Informer } from '../client/informer.ts';
import type { Controller, ControllerContext } from './kit/controller.ts';
import { readSigningCA, type SigningCA } from './config/credential-files.ts';
import { RESOURCE } from '../client/resource-paths.ts';

const BACKDATE_MS = 5 * 60 * 1000;

/** Signers this controller serves (a request without a signerName is a 1.9 request: this signer's). */
const KUBERNETES_SIGNERS = new Set([
  'kubernetes.io/kube-apiserver-client',
  'kubernetes.io/kube-apiserver-client-kubelet',
  'kubernetes.io/kubelet-serving',
  'kubernetes.io/legacy-unknown',
]);

let keyUsageBits: Record<string, number> | undefined;
/** The key usage bits by usage name (x509 is loaded on first use, so this table is too). */
function keyUsageBitsOf(): Record<string, number> {
  const f = loadX509().KeyUsageFlags;
  return (keyUsageBits ??= {
    signing: f.digitalSignature,
    'digital signature': f.digitalSignature,
    'content commitment': f.nonRepudiation,
    'key encipherment': f.keyEncipherment,
    'key agreement': f.keyAgreement,
    'data encipherment': f.dataEncipherment,
    'cert sign': f.keyCertSign,
    'crl sign': f.cRLSign,
    'encipher only': f.encipherOnly,
    'decipher only': f.decipherOnly,
  });
}
const EXT_KEY_USAGES: Record<string, string> = {
  any: '2.5.29.37.0',
  'server auth': '1.3.6.1.5.5.7.3.1',
  'client auth': '1.3.6.1.5.5.7.3.2',
  'code signing': '1.3.6.1.5.5.7.3.3',
  'email protection': '1.3.6.1.5.5.7.3.4',
  's/mime': '1.3.6.1.5.5.7.3.4',
  'ipsec end system': '1.3.6.1.5.5.7.3.5',
  'ipsec tunnel': '1.3.6.1.5.5.7.3.6',
  'ipsec user': '1.3.6.1.5.5.7.3.7',
  timestamping: '1.3.6.1.5.5.7.3.8',
  'ocsp signing': '1.3.6.1.5.5.7.3.9',
  'microsoft sgc': '1.3.6.1.4.1.311.10.3.3',
  'netscape sgc': '2.16.840.1.113730.4.1',
};

/** A request the signer refuses: becomes a Failed condition, never a retry loop. */
export class SigningRefused extends Error {}

/** Key usage bits and extended key usage OIDs of the requested usages (the real keyUsagesFromStrings). */
export function usagesFor(usages: string[]): { bits: number; ext: string[] } {
  const KEY_USAGE_BITS = keyUsageBitsOf();
  let bits = 0;
  const ext: string[] = [];
  for (const u of usages) {
    if (KEY_USAGE_BITS[u] !== undefined) bits |= KEY_USAGE_BITS[u];
    else if (EXT_KEY_USAGES[u] !== undefined) {
      if (!ext.includes(EXT_KEY_USAGES[u])) ext.push(EXT_KEY_USAGES[u]);
    } else throw new SigningRefused(`unknown key usage: ${JSON.stringify(u)}`);
  }
  return { bits, ext };
}

/** The CA's private key as a WebCrypto signing key, with the signature algorithm to use. */
async function webSigningKey(key: KeyObject): Promise<{ key: webcrypto.CryptoKey; alg: { name: string; hash: string } }> {
  const der = key.export({ format: 'der', type: 'pkcs8' });
  if (key.asymmetricKeyType === 'rsa') {
    const alg = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
    return { key: await webcrypto.subtle.importKey('pkcs8', der, alg, false, ['sign']), alg };
  }
  const curve = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' }[key.asymmetricKeyDetails?.namedCurve ?? ''];
  if (!curve) throw new Error(`unsupported CA key curve ${key.asymmetricKeyDetails?.namedCurve}`);
  const hash = curve === 'P-256' ? 'SHA-256' : curve === 'P-384' ? 'SHA-384' : 'SHA-512';
  return { key: await webcrypto.subtle.importKey('pkcs8', der, { name: 'ECDSA', namedCurve: curve }, false, ['sign']), alg: { name: 'ECDSA', hash } };
}

export interface Issuer {
  ca: SigningCA;
  caCert: InstanceType<X509['X509Certificate']>;
  signingKey: webcrypto.CryptoKey;
  alg: { name: string; hash: string };
}

export async function makeIssuer(ca: SigningCA): Promise<Issuer> {
  const { key, alg } = await webSigningKey(ca.key);
  return { ca, caCert: new (loadX509().X509Certificate)(ca.certPem), signingKey: key, alg };
}

/** Issues the certificate for an approved request (PEM). Throws SigningRefused for requests that cannot be signed. */
export async function issueCertificate(issuer: Issuer, csr: KubeObject, durationMs: number, now = Date.now()): Promise<string> {
  let parsed;
  try {
    parsed = parseRequest(csr);
  } catch (e) {
    throw new SigningRefused(`unable to parse the request: ${(e as Error).message}`);
  }
  const spec = (csr.spec ?? {}) as { usages?: string[]; expirationSeconds?: number };
  const { bits, ext } = usagesFor(spec.usages ?? []);
  const x509 = loadX509();
  let ttl = durationMs;
  if (typeof spec.expirationSeconds === 'number' && spec.expirationSeconds > 0) ttl = Math.min(ttl, spec.expirationSeconds * 1000);
  const extensions: InstanceType<typeof x509.Extension>[] = [new x509.BasicConstraintsExtension(false, undefined, true)];
  if (bits) extensions.push(new x509.KeyUsagesExtension(bits, true));
  if (ext.length) extensions.push(new x509.ExtendedKeyUsageExtension(ext, false));
  const san = parsed.csr.extensions.find((e) => e instanceof x509.SubjectAlternativeNameExtension);
  if (san) extensions.push(san);
  extensions.push(await x509.AuthorityKeyIdentifierExtension.create(issuer.caCert.publicKey, false));
  const serial = randomBytes(16);
  serial[0] &= 0x7f;
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial.toString('hex'),
    subject: parsed.csr.subjectName.toJSON(),
    issuer: issuer.caCert.subjectName.toJSON(),
    notBefore: new Date(Math.floor((now - BACKDATE_MS) / 1000) * 1000),
    notAfter: new Date(Math.floor((now + ttl) / 1000) * 1000),
    publicKey: parsed.csr.publicKey,
    signingKey: issuer.signingKey,
    signingAlgorithm: issuer.alg,
    extensions,
  });
  return cert.toString('pem');
}

export class CSRSigningController implements Controller {
  readonly name = 'csrsigning';
  readonly stats = { issued: 0, failed: 0 };

  async run(ctx: ControllerContext): Promise<void> {
    // Checked at start (option-rules.ts); read again here.
    const issuer = await makeIssuer(readSigningCA(ctx.options.string('--cluster-signing-cert-file'), ctx.options.string('--cluster-signing-key-file')));
    const durationMs = ctx.options.durationMs('--experimental-cluster-signing-duration');
    const csrs = ctx.informers.informerFor(RESOURCE.certificateSigningRequests.collection());
    const queue = new WorkQueue<string>({ name: 'certificate', metrics: ctx.metrics });
    const enqueue = (o: KubeObject) => queue.add(o.metadata.name!);
    csrs.addEventHandler({ onAdd: enqueue, onUpdate: (_o, n) => enqueue(n) });
    if (!(await csrs.waitForSync(ctx.signal))) return;
    await runWorkers(queue, 5, (name) => this.sync(ctx, csrs, issuer, durationMs, name), ctx.signal, {
      controller: this.name,
      metrics: ctx.metrics,
      log: ctx.log,
    });
  }

  private async sync(ctx: ControllerContext, csrs: Informer, issuer: Issuer, durationMs: number, name: string): Promise<void> {
    const csr = csrs.get(name);
    if (!csr || csr.metadata.deletionTimestamp) return;
    const status = (csr.status ?? {}) as { certificate?: string };
    if (status.certificate || !isApproved(csr) || isDenied(csr) || isFailed(csr)) return;
    const signer = (csr.spec as { signerName?: string } | undefined)?.signerName;
    if (signer && !KUBERNETES_SIGNERS.has(signer)) return;
    let pem: string | undefined;
    let refusal: string | undefined;
    try {
      pem = await issueCertificate(issuer, csr, durationMs);
    } catch (e) {
      if (!(e instanceof SigningRefused)) throw e;
      refusal = e.message;
    }
    const path = RESOURCE.certificateSigningRequests.named(name, 'status');
    const conditions = conditionsOf(csr);
    const nextStatus = pem
      ? { ...(csr.status as object), certificate: Buffer.from(pem).toString('base64') }
      : {
          ...(csr.status as object),
          conditions: [
            ...conditions,
            {
              type: FAILED,
              status: 'True',
              reason: 'SignerValidationFailure',
              message: refusal,
              lastUpdateTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
            },
          ],
        };
    try {
      await ctx.client.update(path, { ...csr, status: nextStatus } as KubeObject, ctx.signal);
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return;
      throw err; // 409: requeued; the next try reads the newer object
    }
    if (pem) this.stats.issued++;
    else {
      this.stats.failed++;
      ctx.log(`not signing ${name}: ${refusal}`);
    }
  }
}

export const csrSigningController = (): Controller => new CSRSigningController();
