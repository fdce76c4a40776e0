// Streaming subresources need the raw connection: exec, attach and portforward switch protocols (SPDY/3.1 or
// WebSocket). Node hands an upgrade request to the server's 'upgrade' listeners with the socket and the bytes read
// past the headers; this module sends it through the Fastify app like any request (authentication, authorization,
// the resolver, the pod lookup and its errors all apply), with the socket kept on the request so that the handler
// can take it over. A request refused before that answers as usual and the connection is closed.

import http, { type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';

export interface Upgrade {
  socket: Socket;
  head: Buffer;
  /** Set once a handler took the connection over (the app's reply is then not written). */
  taken: boolean;
}

const UPGRADE = Symbol('upgrade');

/** The upgrade of a request, when it asked for one; marks it taken. */
export function takeUpgrade(raw: IncomingMessage): Upgrade | undefined {
  const up = (raw as IncomingMessage & { [UPGRADE]?: Upgrade })[UPGRADE];
  if (!up || up.taken) return undefined;
  up.taken = true;
  return up;
}

/**
 * Routes upgrade requests of `server` through its own 'request' handler. The function returned cuts every upgraded
 * connection still open (the server's close: node's closeAllConnections does not know them).
 */
export function routeUpgrades(server: Server): () => void {
  const open = new Set<Socket>();
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
    (req as IncomingMessage & { [UPGRADE]?: Upgrade })[UPGRADE] = { socket, head, taken: false };
    const res = new http.ServerResponse(req);
    res.assignSocket(socket);
    // An answer without a protocol switch (an error) ends the connection: its HTTP parser is gone.
    res.on('finish', () => {
      res.detachSocket(socket);
      socket.end();
    });
    res.shouldKeepAlive = false;
    server.emit('request', req, res);
  });
  return () => {
    for (const s of open) s.destroy();
    open.clear();
  };
}
