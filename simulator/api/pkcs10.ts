// PKCS#10 certificate requests (a CSR's spec.request): PEM decoding, parsing and the self-signature check, the
// way the real server's certificates.ParseCSR + CheckSignature read them. Parsing is @peculiar/x509's (loaded
// after the Reflect shim it needs); the signature is checked with node:crypto over the request's to-be-signed
// bytes. The API's validation, the approver and the signer all read requests through here.

import { createPublicKey, verify, constants } from 'node:crypto';
import { webcrypto } from 'node:crypto';
import './reflect-shim.ts';

export const x509 = await import('@peculiar/x509');
x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

export class CsrError extends Error {}

export interface ParsedCsr {
  csr: InstanceType<typeof x509.Pkcs10CertificateRequest>;
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
  let csr: InstanceType<typeof x509.Pkcs10CertificateRequest>;
  try {
    csr = new x509.Pkcs10CertificateRequest(Buffer.from(m[2].replace(/\s+/g, ''), 'base64'));
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
    if (!(ext instanceof x509.SubjectAlternativeNameExtension)) continue;
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
