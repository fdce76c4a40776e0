// What renderKubeconfig writes, in a file that imports nothing: the package's declaration file for its main entry
// (scripts/build-package.mjs) includes it as it is.

/** A one-cluster client config: the server, the CA and client credentials (PEM), or a bearer token. */
export interface ClientConfigFields {
  server: string;
  ca?: string | Uint8Array;
  cert?: string | Uint8Array;
  key?: string | Uint8Array;
  token?: string;
  namespace?: string;
  /** The cluster, user and context name (default simulator). */
  name?: string;
}
