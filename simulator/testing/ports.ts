// A free TCP port on the loopback address, for a server a test or bench starts in a child process (whose port
// must be known before it listens). The port is free when returned; another process could take it before the
// child binds it, which on a test machine does not happen in practice.
import { createServer } from 'node:net';

export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, host, () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}
