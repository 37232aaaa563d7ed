// Starting and stopping a node:http server: listen and report the URL; close with connections in flight.
import type http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens on host:port (0 picks a free port) and returns the server's base URL. */
export async function listen(server: http.Server, port: number, host: string): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const a = server.address() as AddressInfo;
  return `http://${a.address.includes(':') ? `[${a.address}]` : a.address}:${a.port}`;
}

/** Closes the server, cutting idle and in-flight connections. */
export async function close(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
}
