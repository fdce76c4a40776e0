// The PEM files the daemon's identity controllers read: the service-account signing key
// (--service-account-private-key-file), the root CA bundle put in every token Secret (--root-ca-file) and the
// cluster signing CA (--cluster-signing-cert-file / --cluster-signing-key-file). They are read and checked when
// the command line is validated, so that a missing, unreadable or malformed file is a usage error (exit 2)
// naming the option rather than a controller that fails later. Parsing is node:crypto's (no ASN.1 here).

import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';

export class CredentialFileError extends Error {}

/** JWS algorithm of a service-account signing key, as the real token generator picks it. */
export type TokenAlgorithm = 'RS256' | 'ES256' | 'ES384' | 'ES512';

export interface SigningKey {
  key: KeyObject;
  alg: TokenAlgorithm;
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new CredentialFileError(`cannot read the file: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

const CURVE_ALG: Record<string, TokenAlgorithm> = { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' };

/** The first RSA or ECDSA private key of a PEM file (PKCS#1, SEC1 or PKCS#8). */
export function parsePrivateKeyPem(text: string): SigningKey {
  for (const m of text.matchAll(/-----BEGIN ([A-Z ]*PRIVATE KEY)-----[\s\S]*?-----END \1-----/g)) {
    let key: KeyObject;
    try {
      key = createPrivateKey({ key: m[0], format: 'pem' });
    } catch (e) {
      throw new CredentialFileError(`malformed ${m[1]} block: ${(e as Error).message}`);
    }
    if (key.asymmetricKeyType === 'rsa') return { key, alg: 'RS256' };
    if (key.asymmetricKeyType === 'ec') {
      const alg = CURVE_ALG[key.asymmetricKeyDetails?.namedCurve ?? ''];
      if (!alg) throw new CredentialFileError(`ECDSA curve ${key.asymmetricKeyDetails?.namedCurve} is not supported (P-256, P-384, P-521)`);
      return { key, alg };
    }
    throw new CredentialFileError(`a ${key.asymmetricKeyType} key is not supported (RSA or ECDSA)`);
  }
  throw new CredentialFileError('no PEM private key (RSA or ECDSA) found');
}

export function readPrivateKeyFile(path: string): SigningKey {
  return parsePrivateKeyPem(readText(path));
}

/** Every certificate of a PEM bundle, checked; the PEM text of the certificate blocks is kept as given. */
export function parseCertificatesPem(text: string): { pem: string; certs: X509Certificate[] } {
  const blocks = [...text.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g)].map((m) => m[0]);
  if (blocks.length === 0) throw new CredentialFileError('no PEM certificate found');
  const certs = blocks.map((b, i) => {
    try {
      return new X509Certificate(b);
    } catch (e) {
      throw new CredentialFileError(`certificate ${i + 1} is malformed: ${(e as Error).message}`);
    }
  });
  return { pem: `${blocks.join('\n')}\n`, certs };
}

/** The root CA bundle: its bytes go into each token Secret's ca.crt as read (the real daemon does the same). */
export function readRootCAFile(path: string): Buffer {
  const text = readText(path);
  parseCertificatesPem(text);
  return Buffer.from(text, 'utf8');
}

export interface SigningCA {
  cert: X509Certificate;
  certPem: string;
  key: KeyObject;
}

/** The cluster signing CA: the first certificate of the cert file and the private key that matches it. */
export function readSigningCA(certPath: string, keyPath: string): SigningCA {
  const { certs } = parseCertificatesPem(readText(certPath));
  const { key } = readPrivateKeyFile(keyPath);
  const cert = certs[0];
  if (!cert.checkPrivateKey(key)) throw new CredentialFileError('the private key does not match the certificate');
  return { cert, certPem: cert.toString(), key };
}
