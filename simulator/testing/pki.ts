// Test fixtures for the identity controllers: keys and CA certificates made with the openssl command line (as
// an operator would make them), in a fresh temporary directory. Tests that use them skip when openssl is
// missing (CI installs it).

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const probe = spawnSync('openssl', ['version'], { encoding: 'utf8' });
/** A skip reason when openssl is not installed, else false. */
export const noOpenssl: string | false = probe.error ? `openssl is not on PATH (${(probe.error as NodeJS.ErrnoException).code})` : false;

export interface Pki {
  dir: string;
  /** Runs openssl with args in dir; returns stdout. */
  openssl(...args: string[]): string;
  /** A private key file: RSA 2048 or ECDSA (prime256v1, secp384r1, ...). */
  key(name: string, kind?: 'rsa' | { curve: string }): string;
  /** A self-signed CA: its certificate and key files. */
  ca(name: string, cn?: string): { cert: string; key: string };
  /** A PKCS#10 request (PEM file) for subject with a new RSA key. */
  csr(name: string, subject: string): { csr: string; key: string };
  cleanup(): void;
}

export function makePki(prefix = 'pki-'): Pki {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return {
    dir,
    openssl,
    key(name, kind = 'rsa') {
      const file = join(dir, name);
      if (kind === 'rsa') openssl('genrsa', '-out', file, '2048');
      else openssl('ecparam', '-name', kind.curve, '-genkey', '-noout', '-out', file);
      return file;
    },
    ca(name, cn = `${name}-ca`) {
      const cert = join(dir, `${name}.pem`);
      const key = join(dir, `${name}.key`);
      openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-subj', `/CN=${cn}`, '-days', '2');
      return { cert, key };
    },
    csr(name, subject) {
      const csr = join(dir, `${name}.csr`);
      const key = join(dir, `${name}.key`);
      openssl('req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', csr, '-subj', subject);
      return { csr, key };
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
