// TLS material made at start (--secure): a CA, a serving certificate for the listen address, localhost and
// 127.0.0.1, and client certificates (CN = user, O = groups) for the admin client config and the in-process
// clients. Keys are ECDSA P-256 (fast to make, accepted by kubectl, client-go, Node and OpenSSL alike).
// X.509 building is @peculiar/x509's; keys and signatures are node:crypto's WebCrypto.

import { webcrypto, X509Certificate as NodeX509 } from 'node:crypto';
import { isIP } from 'node:net';
import { x509 as loadX509 } from '../../api/pkcs10.ts';

// Loaded on first use (api/pkcs10.ts); this module itself is imported only when --secure asks for certificates.
const x509 = loadX509();
type CryptoKeyPair = webcrypto.CryptoKeyPair;
type CryptoKey = webcrypto.CryptoKey;

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 24 * 3600 * 1000;

export interface KeyPairPem {
  cert: string;
  key: string;
}

export interface CertificateAuthority extends KeyPairPem {
  sign(opts: {
    commonName: string;
    organizations?: string[];
    serving?: { dnsNames: string[]; ips: string[] };
    client?: boolean;
    days?: number;
  }): Promise<KeyPairPem>;
}

async function keyPair(): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
}

async function privatePem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  return `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n?$/, '\n')}-----END PRIVATE KEY-----\n`;
}

function serial(): string {
  const b = webcrypto.getRandomValues(new Uint8Array(16));
  b[0] &= 0x7f; // positive
  return Buffer.from(b).toString('hex');
}

function dn(commonName: string, organizations: string[] = []): string {
  const esc = (v: string) => v.replace(/([,+"\\<>;=])/g, '\\$1');
  return [...organizations.map((o) => `O=${esc(o)}`), `CN=${esc(commonName)}`].join(', ');
}

/** A new self-signed CA (10 years). */
export async function createCertificateAuthority(commonName: string): Promise<CertificateAuthority> {
  const keys = await keyPair();
  const caCert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: dn(commonName),
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 3650 * DAY),
    keys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const caPem = caCert.toString('pem') + '\n';
  return {
    cert: caPem,
    key: await privatePem(keys.privateKey),
    async sign(opts) {
      const leafKeys = await keyPair();
      const usages = [];
      if (opts.serving) usages.push(x509.ExtendedKeyUsage.serverAuth);
      if (opts.client) usages.push(x509.ExtendedKeyUsage.clientAuth);
      const extensions: import('@peculiar/x509').Extension[] = [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
        new x509.ExtendedKeyUsageExtension(usages, false),
        await x509.AuthorityKeyIdentifierExtension.create(caCert, false),
      ];
      if (opts.serving) {
        const names = [
          ...opts.serving.dnsNames.map((value) => ({ type: 'dns' as const, value })),
          ...opts.serving.ips.map((value) => ({ type: 'ip' as const, value })),
        ];
        extensions.push(new x509.SubjectAlternativeNameExtension(names, false));
      }
      const cert = await x509.X509CertificateGenerator.create({
        serialNumber: serial(),
        subject: dn(opts.commonName, opts.organizations),
        issuer: caCert.subject,
        notBefore: new Date(Date.now() - 60_000),
        notAfter: new Date(Date.now() + (opts.days ?? 365) * DAY),
        signingKey: keys.privateKey,
        publicKey: leafKeys.publicKey,
        signingAlgorithm: ALG,
        extensions,
      });
      return { cert: cert.toString('pem') + '\n', key: await privatePem(leafKeys.privateKey) };
    },
  };
}

/** The SANs of a serving certificate for a listen address: it, localhost and 127.0.0.1 (and ::1). */
export function servingNames(host: string): { dnsNames: string[]; ips: string[] } {
  const dnsNames = new Set(['localhost']);
  const ips = new Set(['127.0.0.1', '::1']);
  if (host && host !== '0.0.0.0' && host !== '::') {
    if (isIP(host)) ips.add(host);
    else dnsNames.add(host);
  }
  return { dnsNames: [...dnsNames], ips: [...ips] };
}

/** Subject and SANs of a PEM certificate (for messages and tests). */
export function describeCertificate(pem: string): { subject: string; issuer: string; subjectAltName?: string } {
  const c = new NodeX509(pem);
  return { subject: c.subject, issuer: c.issuer, subjectAltName: c.subjectAltName };
}
