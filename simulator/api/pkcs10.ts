// PKCS#10 certificate requests (a CSR's spec.request): PEM decoding, parsing and the self-signature check, the
// way the real server's certificates.ParseCSR + CheckSignature read them. Parsing is @peculiar/x509's (loaded
// after the Reflect shim it needs); the signature is checked with node:crypto over the request's to-be-signed
// bytes. The API's validation, the approver and the signer all read requests through here.
//
// @peculiar/x509 and its stack (tsyringe, asn1js, a dozen @peculiar/asn1-* packages: some 200 modules) is loaded
// on first use, not at import: a server that never sees a CSR never pays for it, and start-up (process start to
// the first answer) does not wait for it. The load is a synchronous require of the package's CommonJS build, so
// the sync paths that parse requests (validation, conversion) keep their signatures.

import { createPublicKey, verify, constants, webcrypto } from 'node:crypto';
import { createRequire } from 'node:module';
import './reflect-shim.ts';

export type X509 = typeof import('@peculiar/x509');

let loaded: X509 | undefined;

/** @peculiar/x509, loaded (and given node's WebCrypto) on the first call. */
export function x509(): X509 {
  if (!loaded) {
    const lib = createRequire(import.meta.url)('@peculiar/x509') as X509;
    lib.cryptoProvider.set(webcrypto as unknown as Parameters<X509['cryptoProvider']['set']>[0]);
    loaded = lib;
  }
  return loaded;
}

export class CsrError extends Error {}

export interface ParsedCsr {
  csr: InstanceType<X509['Pkcs10CertificateRequest']>;
  commonName: string;
  organizations: string[];
  dnsNames: string[];
  emailAddresses: string[];
  ipAddresses: string[];
  uris: string[];
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/;

/** The first PEM block of a CSR's request bytes, which must be a CERTIFICATE REQUEST, parsed. */
export function parseCsrPem(pem: Buffer | string): ParsedCsr {
  const text = typeof pem === 'string' ? pem : pem.toString('latin1');
  const m = PEM_BLOCK.exec(text);
  if (!m || m[1] !== 'CERTIFICATE REQUEST') throw new CsrError('PEM block type must be CERTIFICATE REQUEST');
  const lib = x509();
  let csr: InstanceType<X509['Pkcs10CertificateRequest']>;
  try {
    csr = new lib.Pkcs10CertificateRequest(Buffer.from(m[2].replace(/\s+/g, ''), 'base64'));
  } catch (e) {
    throw new CsrError(`asn1: structure error: ${(e as Error).message}`);
  }
  const name = csr.subjectName;
  const out: ParsedCsr = {
    csr,
    commonName: name.getField('CN')[0] ?? '',
    organizations: name.getField('O'),
    dnsNames: [],
    emailAddresses: [],
    ipAddresses: [],
    uris: [],
  };
  for (const ext of csr.extensions) {
    if (!(ext instanceof lib.SubjectAlternativeNameExtension)) continue;
    for (const n of ext.names.items) {
      if (n.type === 'dns') out.dnsNames.push(n.value);
      else if (n.type === 'email') out.emailAddresses.push(n.value);
      else if (n.type === 'ip') out.ipAddresses.push(n.value);
      else if (n.type === 'url') out.uris.push(n.value);
    }
  }
  return out;
}

const HASHES: Record<string, string> = { 'SHA-1': 'sha1', 'SHA-256': 'sha256', 'SHA-384': 'sha384', 'SHA-512': 'sha512' };

/** Whether the request is signed by the key it carries (x509.CertificateRequest.CheckSignature). */
export function csrSignatureValid(parsed: ParsedCsr): boolean {
  const { csr } = parsed;
  // The to-be-signed bytes: a private getter of the parsed request (the DER of CertificationRequestInfo).
  const tbs = (csr as unknown as { tbs?: ArrayBuffer }).tbs;
  if (!tbs) throw new CsrError('cannot read the signed part of the request');
  const alg = csr.signatureAlgorithm as { name: string; hash?: { name: string } };
  const key = createPublicKey({ key: Buffer.from(csr.publicKey.rawData), format: 'der', type: 'spki' });
  const data = Buffer.from(tbs);
  const sig = Buffer.from(csr.signature);
  try {
    if (alg.name === 'Ed25519') return verify(null, data, key, sig);
    const hash = HASHES[alg.hash?.name ?? ''];
    if (!hash) return false;
    if (alg.name === 'RSA-PSS') return verify(hash, data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_AUTO }, sig);
    return verify(hash, data, key, sig);
  } catch {
    return false;
  }
}
