// The security options of the API server's command line (--secure, --tls-*, --client-ca-file, --token-auth-file,
// --service-account-*, --anonymous-auth, --authorization-mode) by their camelCase names, in a file that imports
// nothing: secure-serving.ts builds from them, and startSimulator's options (simulator/launch/types.ts, and so the
// package's declaration files) include them as they are.

export interface SecurityOptions {
  /** HTTPS with a CA made at start; the client config carries an admin certificate; CSRs are signed by the CA. */
  secure?: boolean;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  clientCaFile?: string;
  tokenAuthFile?: string;
  serviceAccountKeyFile?: string;
  serviceAccountLookup?: boolean;
  /** Undefined = the default (true) without having been given. */
  anonymousAuth?: boolean;
  /** --enable-bootstrap-token-auth: bootstrap-token Secrets in kube-system as bearer tokens. */
  enableBootstrapTokenAuth?: boolean;
  /** Comma list of AlwaysAllow, AlwaysDeny, RBAC (default AlwaysAllow). */
  authorizationMode?: string;
}
