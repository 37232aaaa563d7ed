// Who may call what on the daemon's HTTP server. Bound beyond loopback, every path needs the bearer token. On
// loopback, /health and /ready (and the dashboard's assets) are open; /metrics and the control API need the token
// when one is set; with no token set, everything on loopback is open. Commands can be switched off by config
// (`daemon.http.commands: false`): a caller then gets 403, token or not. The token is compared in constant time and
// only its digest is kept.
import { createHash, timingSafeEqual } from 'node:crypto';

/** Loopback addresses: only this machine reaches them. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^(::ffff:)?127(\.\d{1,3}){3}$/.test(host);
}

/** What a path is, for access: the liveness pair, the scrape, the API's reads and its commands, anything else. */
export type PathClass = 'probe' | 'metrics' | 'read' | 'command' | 'other';

export function classify(method: string, path: string): PathClass {
  if (path === '/health' || path === '/ready') return 'probe';
  if (path === '/metrics') return 'metrics';
  if (path === '/api/v1' || path.startsWith('/api/v1/')) return method === 'GET' || method === 'HEAD' ? 'read' : 'command';
  return 'other';
}

/** The answer of the access check: go on (with who the caller is), or refuse with a status. */
export type Access = { ok: true; who: 'token' | 'loopback' } | { ok: false; status: 401 | 403; error: string };

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

export class AccessPolicy {
  private readonly tokenDigest: Buffer | undefined;
  /** Bound beyond loopback: every path needs the token. */
  private everyPathGuarded = true;

  constructor(
    token: string | undefined,
    /** Commands allowed (config `daemon.http.commands`). */
    private readonly commands: boolean,
  ) {
    // Only the digest is kept: equal lengths for timingSafeEqual, and the token itself is not held.
    this.tokenDigest = token ? digest(token) : undefined;
  }

  get hasToken(): boolean {
    return this.tokenDigest !== undefined;
  }

  /** Where the server is bound decides whether every path is guarded; beyond loopback without a token it must not start. */
  boundTo(host: string): void {
    const loopback = isLoopback(host);
    if (!loopback && !this.tokenDigest) {
      throw new Error(`binding ${host} needs a bearer token (environment variable): /health, /ready and /metrics, and the control API, would be open to the network`);
    }
    this.everyPathGuarded = !loopback;
  }

  /** `Authorization: Bearer <token>` (the scheme in any case), compared in constant time. */
  private authorized(header: string | undefined): boolean {
    if (!this.tokenDigest) return false;
    const m = /^bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
    return m !== null && timingSafeEqual(digest(m[1]!), this.tokenDigest);
  }

  check(method: string, path: string, authorization: string | undefined): Access {
    const cls = classify(method, path);
    const authorized = this.authorized(authorization);
    const needsToken = this.everyPathGuarded || (this.tokenDigest !== undefined && (cls === 'metrics' || cls === 'read' || cls === 'command'));
    if (needsToken && !authorized) return { ok: false, status: 401, error: 'unauthorized' };
    if (cls === 'command' && !this.commands) return { ok: false, status: 403, error: 'commands are disabled on this daemon (daemon.http.commands: false)' };
    return { ok: true, who: authorized ? 'token' : 'loopback' };
  }
}
