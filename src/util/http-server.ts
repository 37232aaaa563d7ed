// Starting and stopping a node:http server: listen and report the URL; close with connections in flight. And the
// Host names a server answers to: a request whose Host names another (a DNS rebinding page's name, which resolves to
// this machine) is none of its business.
import type http from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';

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

/** A Host header's name (lower case, IPv6 in brackets, no trailing dot) and port (empty: the scheme's default). */
export function parseHost(value: string): { name: string; port: string } | undefined {
  if (!/^[A-Za-z0-9.\-_:[\]]+$/.test(value)) return undefined;
  try {
    const url = new URL(`http://${value}`);
    if (url.username || url.password || url.pathname !== '/' || url.host === '') return undefined;
    return { name: url.hostname.replace(/\.$/, '').toLowerCase(), port: url.port };
  } catch {
    return undefined;
  }
}

/** The Host names a server bound to `host` answers to: loopback's, the address itself, or every address of the machine. */
export function servedNames(host: string): Set<string> {
  const names = new Set(['localhost', '127.0.0.1', '[::1]']);
  const wildcard = host === '0.0.0.0' || host === '::' || host === '[::]';
  if (!wildcard) {
    names.add(isIP(host) === 6 ? `[${host.toLowerCase()}]` : host.toLowerCase());
    return names;
  }
  for (const addresses of Object.values(networkInterfaces())) {
    for (const a of addresses ?? []) names.add(a.family === 'IPv6' ? `[${a.address.split('%')[0]!.toLowerCase()}]` : a.address);
  }
  return names;
}
