/**
 * TCP on loopback for failure tests: a server that accepts connections and never answers (a hung
 * host), and a proxy in front of a real listener whose connections a test can cut mid-stream.
 */
import { connect, createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';

export interface SilentServer {
  port: number;
  url: string;
  /** Connections accepted so far: evidence that a client did ask. */
  accepted(): number;
  close(): Promise<void>;
}

/** Accepts every connection, reads and drops what it is sent, never writes a byte. */
export async function startSilentServer(): Promise<SilentServer> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server: Server = createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.resume();
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    port, url: `http://127.0.0.1:${port}`, accepted: () => accepted,
    close: () => new Promise((resolve) => { for (const s of sockets) s.destroy(); server.close(() => resolve()); }),
  };
}

export interface TcpProxy {
  port: number;
  url: string;
  /** Client connections accepted so far. */
  accepted(): number;
  /** Client connections open now. */
  open(): number;
  /** Destroys every open connection (both sides) at once; returns how many were cut. */
  cutAll(): number;
  close(): Promise<void>;
}

/** Forwards every connection to 127.0.0.1:`targetPort`, byte for byte. */
export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const pairs = new Set<[Socket, Socket]>();
  let accepted = 0;
  const server: Server = createServer((client) => {
    accepted += 1;
    const upstream = connect(targetPort, '127.0.0.1');
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const end = (): void => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    port, url: `http://127.0.0.1:${port}`,
    accepted: () => accepted,
    open: () => pairs.size,
    cutAll: () => {
      const n = pairs.size;
      for (const [a, b] of [...pairs]) { a.destroy(); b.destroy(); }
      pairs.clear();
      return n;
    },
    close: () => new Promise((resolve) => {
      for (const [a, b] of [...pairs]) { a.destroy(); b.destroy(); }
      server.close(() => resolve());
    }),
  };
}
