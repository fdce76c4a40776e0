// Descriptions of the certificates group's types (certificates.k8s.io v1beta1 as in 1.9, and v1): the
// CertificateSigningRequest that is approved and then signed by the daemon's signer.

import { condition, LAST_UPDATE_TIME, t, type PackageDescriptions } from './common.ts';

export const CERTIFICATES: PackageDescriptions = {
  packages: ['io.k8s.api.certificates.v1beta1', 'io.k8s.api.certificates.v1'],
  types: {
    CertificateSigningRequest: t('A request for a signed X.509 certificate: a PKCS#10 request that someone approves (or denies) and a signer then signs.', {
      spec: 'The request and who made it (filled in by the server).',
      status: 'Approval conditions and, once signed, the certificate.',
    }),
    CertificateSigningRequestSpec: t('What is asked to be signed, and by whom.', {
      request: 'The PKCS#10 certificate request, PEM-encoded then base64 in JSON.',
      signerName: 'The signer asked to sign, e.g. kubernetes.io/kube-apiserver-client.',
      expirationSeconds: 'How long the certificate should be valid; the signer may give less.',
      usages: 'What the certificate will be used for: digital signature, key encipherment, client auth, server auth...',
      username: 'The user who made the request. Set by the server.',
      uid: 'The uid of that user. Set by the server.',
      groups: 'The groups of that user. Set by the server.',
      extra: 'Extra attributes of that user. Set by the server.',
    }),
    CertificateSigningRequestStatus: t('Where a request stands.', {
      conditions: 'Approved, Denied or Failed.',
      certificate: 'The signed certificate, PEM-encoded then base64 in JSON; empty until signed.',
    }),
    CertificateSigningRequestCondition: condition('request', 'Approved, Denied, Failed', { lastUpdateTime: LAST_UPDATE_TIME }),
  },
};
