// Keys and certificates the daemon checks hand to the daemon under test, made here as an operator would make
// them: a PEM RSA key for --service-account-private-key-file (PKCS#8), a self-signed PEM CA (certificate +
// key) for --root-ca-file and --cluster-signing-cert-file / --cluster-signing-key-file, and PKCS#10 requests
// for CSRs. Keys are node:crypto's, certificates and requests @peculiar/x509's (loaded on first use, after
// the Reflect shim it needs); verification is node:crypto's X509Certificate. No hand-written ASN.1.

import { createPublicKey, generateKeyPairSync, webcrypto, type KeyObject } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

type X509Module = typeof import('@peculiar/x509');
let loaded: Promise<X509Module> | undefined;

/** @peculiar/x509 with node's WebCrypto as its provider. */
function x509(): Promise<X509Module> {
  loaded ??= (async () => {
    await import('../../simulator/api/reflect-shim.ts');
    const m = await import('@peculiar/x509');
    m.cryptoProvider.set(webcrypto as unknown as Parameters<typeof m.cryptoProvider.set>[0]);
    return m;
  })();
  return loaded;
}

const subtle = webcrypto.subtle;
const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

const pem = (label: string, der: ArrayBuffer) => `-----BEGIN ${label}-----\n${Buffer.from(der).toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END ${label}-----\n`;

export interface DaemonPki {
  /** PEM RSA private key (PKCS#8) for --service-account-private-key-file. */
  serviceAccountKeyFile: string;
  /** The public key the suite derives from that file: tokens must verify with it. */
  serviceAccountPublicKey: KeyObject;
  /** PEM self-signed CA certificate (--root-ca-file, --cluster-signing-cert-file) and its PEM key. */
  caCertFile: string;
  caKeyFile: string;
  caCertPem: string;
}

/** Writes a service-account key and a self-signed CA into dir. */
export async function writeDaemonPki(dir: string, cn = 'daemon-suite-ca'): Promise<DaemonPki> {
  const x = await x509();
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const serviceAccountKeyFile = join(dir, 'sa.key');
  writeFileSync(serviceAccountKeyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  const keys = (await subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const now = Date.now();
  const ca = await x.X509CertificateGenerator.createSelfSigned({
    serialNumber: (now % 1e12).toString(16).padStart(2, '0'),
    name: `CN=${cn}`,
    notBefore: new Date(now - 3_600_000),
    notAfter: new Date(now + 2 * 86_400_000),
    signingAlgorithm: EC,
    keys,
    extensions: [
      new x.BasicConstraintsExtension(true, undefined, true),
      new x.KeyUsagesExtension(x.KeyUsageFlags.keyCertSign | x.KeyUsageFlags.cRLSign | x.KeyUsageFlags.digitalSignature, true),
      await x.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const caCertPem = ca.toString('pem') + '\n';
  const caCertFile = join(dir, 'ca.crt');
  const caKeyFile = join(dir, 'ca.key');
  writeFileSync(caCertFile, caCertPem);
  writeFileSync(caKeyFile, pem('PRIVATE KEY', await subtle.exportKey('pkcs8', keys.privateKey)));
  return { serviceAccountKeyFile, serviceAccountPublicKey: createPublicKey(privateKey), caCertFile, caKeyFile, caCertPem };
}

/**
 * A PKCS#10 request (PEM) for subject, e.g. "CN=system:node:n1, O=system:nodes", with a new ECDSA P-256 key, and
 * that key's SubjectPublicKeyInfo (DER) to compare an issued certificate's key with.
 */
export async function certificateRequest(subject: string, opts: { dnsNames?: string[] } = {}): Promise<{ pem: string; publicKeySpki: Buffer }> {
  const x = await x509();
  const keys = (await subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const extensions = opts.dnsNames?.length ? [new x.SubjectAlternativeNameExtension(opts.dnsNames.map((value) => ({ type: 'dns' as const, value })))] : [];
  const csr = await x.Pkcs10CertificateRequestGenerator.create({ name: subject, keys, signingAlgorithm: EC, extensions });
  return { pem: csr.toString('pem') + '\n', publicKeySpki: Buffer.from(await subtle.exportKey('spki', keys.publicKey)) };
}
