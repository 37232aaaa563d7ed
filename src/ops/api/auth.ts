// Who may call what on the daemon's HTTP server, in three checks made before routing. The Host: only names the
// daemon serves (its bound address, loopback's names, the machine's addresses when bound to all of them, the
// configured daemon.http.allowedHosts) — a DNS rebinding page, whose name points at 127.0.0.1, is refused (421).
// The origin of a state-changing request: an Origin or Referer not this daemon's own (nor a configured
// allowedOrigins) is refused (403), token or not, and so is a browser's `Sec-Fetch-Site` that is not same-origin.
// The credential: a bearer token (`Authorization: Bearer …`) or the dashboard's session cookie (HttpOnly,
// SameSite=Strict, set by GET /login?token=…), on loopback too, for the control API, its event stream and /metrics;
// /health, /ready, the dashboard's static files and /login are open on loopback; bound beyond loopback, every path
// but /login needs the credential. Commands can be switched off by config (`daemon.http.commands: false`): 403,
// token or not. Tokens are compared in constant time as digests; the cookie holds a value derived from the token,
// never the token.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { parseHost, servedNames } from '../../util/http-server.js';
import { registerSecret } from '../../util/secrets.js';

/** Loopback addresses: only this machine reaches them. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^(::ffff:)?127(\.\d{1,3}){3}$/.test(host);
}

/** What a path is, for access: the liveness pair, the scrape, the API's reads and its commands, the login link, anything else. */
export type PathClass = 'probe' | 'metrics' | 'read' | 'command' | 'login' | 'other';

export const LOGIN_PATH = '/login';

export function classify(method: string, path: string): PathClass {
  if (path === '/health' || path === '/ready') return 'probe';
  if (path === '/metrics') return 'metrics';
  if (path === LOGIN_PATH) return 'login';
  if (path === '/api/v1' || path.startsWith('/api/v1/')) return isSafeMethod(method) ? 'read' : 'command';
  return 'other';
}

/** GET, HEAD and OPTIONS change nothing; every other method is a state change, whatever its path. */
export function isSafeMethod(method: string): boolean {
  return method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
}

/** The answer of the access check: go on (with how the caller proved itself), or refuse with a status. */
export type Access = { ok: true; who: 'token' | 'session' | 'open' } | { ok: false; status: 401 | 403 | 421; error: string };

/** A request's headers the checks read (node's IncomingHttpHeaders fits). */
export interface RequestHeaders {
  host?: string | undefined;
  origin?: string | undefined;
  referer?: string | undefined;
  authorization?: string | undefined;
  cookie?: string | undefined;
  'sec-fetch-site'?: string | string[] | undefined;
}

export interface AccessOptions {
  /** The token every credential derives from. */
  token: string;
  /** Commands allowed (config `daemon.http.commands`). */
  commands: boolean;
  /** More Host names served (config `daemon.http.allowedHosts`): `name`, `name:port` or `*.domain`. */
  allowedHosts?: readonly string[];
  /** More origins whose pages may change state (config `daemon.http.allowedOrigins`): `https://name[:port]`. */
  allowedOrigins?: readonly string[];
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** An origin (`scheme://host[:port]`) as browsers serialise it, or undefined for `null` and anything unreadable. */
export function normalOrigin(value: string): string | undefined {
  if (value === 'null') return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

export class AccessPolicy {
  private readonly tokenDigest: Buffer;
  private readonly sessionDigest: Buffer;
  /** The session cookie's value (derived from the token: the cookie never carries the token itself). */
  readonly sessionValue: string;
  private readonly commands: boolean;
  private readonly allowedOrigins: ReadonlySet<string>;
  private readonly extraHosts: ReadonlyArray<{ name: string; port: string | undefined; suffix: boolean }>;
  /** Names served, set by boundTo (loopback's until then). */
  private names: ReadonlySet<string> = servedNames('127.0.0.1');
  /** Bound beyond loopback: every path but /login needs the credential. */
  private everyPathGuarded = false;
  /** The session cookie's name: one per port (browsers send a host's cookies to every port of it). */
  cookieName = 'sextant_session';

  constructor(opts: AccessOptions) {
    if (opts.token.length < 16) throw new Error('the HTTP token is too short: 16 characters at least');
    this.tokenDigest = digest(opts.token);
    this.sessionValue = createHmac('sha256', opts.token).update('sextant dashboard session').digest('base64url');
    this.sessionDigest = digest(this.sessionValue);
    // A credential too: scrubbed from every log line and error text, as the token is.
    registerSecret(this.sessionValue);
    this.commands = opts.commands;
    this.allowedOrigins = new Set((opts.allowedOrigins ?? []).map((o) => normalOrigin(o) ?? o));
    this.extraHosts = (opts.allowedHosts ?? []).map((entry) => {
      const suffix = entry.startsWith('*.');
      const parsed = parseHost(suffix ? entry.slice(2) : entry);
      if (!parsed) throw new Error(`daemon.http.allowedHosts: ${JSON.stringify(entry)} is not a host name`);
      return { name: parsed.name, port: /:\d+$/.test(entry) ? parsed.port : undefined, suffix };
    });
  }

  /** Where the server is bound: the names it serves, and whether every path is guarded. */
  boundTo(host: string, port: number): void {
    this.names = servedNames(host);
    this.everyPathGuarded = !isLoopback(host);
    this.cookieName = `sextant_session_${port}`;
  }

  /** A Host this daemon serves; 421 otherwise (a DNS rebinding page's name, a proxy not configured). */
  checkHost(hostHeader: string | undefined): Access | undefined {
    const host = hostHeader ? parseHost(hostHeader) : undefined;
    if (!host) return { ok: false, status: 421, error: 'no readable Host header: refused' };
    if (this.names.has(host.name)) return undefined;
    for (const h of this.extraHosts) {
      const nameOk = h.suffix ? host.name.endsWith(`.${h.name}`) : host.name === h.name;
      if (nameOk && (h.port === undefined || h.port === host.port)) return undefined;
    }
    return {
      ok: false,
      status: 421,
      error: `host ${JSON.stringify(hostHeader)} is not served here: this daemon answers to its own address and localhost (a reverse proxy's name goes in daemon.http.allowedHosts)`,
    };
  }

  /**
   * A state change comes from this daemon's own pages or from no page at all: a browser's Origin (else Referer) must
   * be `http://<Host>` or a configured origin, and its Sec-Fetch-Site, when sent, same-origin or none (typed by the user).
   */
  checkOrigin(method: string, headers: RequestHeaders): Access | undefined {
    if (isSafeMethod(method)) return undefined;
    const own = `http://${(headers.host ?? '').toLowerCase()}`;
    const sent = headers.origin ?? (headers.referer !== undefined ? (normalOrigin(headers.referer) ?? 'null') : undefined);
    if (sent !== undefined) {
      const origin = normalOrigin(sent);
      const ownOrigin = normalOrigin(own);
      if (origin === undefined || (origin !== ownOrigin && !this.allowedOrigins.has(origin))) {
        return {
          ok: false,
          status: 403,
          error: `origin ${JSON.stringify(sent)} is not this daemon's (${ownOrigin ?? own}): a state change is taken from the daemon's own pages only (a reverse proxy's origin goes in daemon.http.allowedOrigins)`,
        };
      }
    }
    const site = first(headers['sec-fetch-site']);
    if (site !== undefined && site !== 'same-origin' && site !== 'none') {
      return { ok: false, status: 403, error: `a ${site} request may not change state: a state change is taken from the daemon's own pages only` };
    }
    return undefined;
  }

  /** `Authorization: Bearer <token>` (the scheme in any case), compared in constant time. */
  tokenMatches(value: string): boolean {
    return timingSafeEqual(digest(value), this.tokenDigest);
  }

  private bearer(header: string | undefined): boolean {
    const m = /^bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
    return m !== null && this.tokenMatches(m[1]!);
  }

  private session(cookieHeader: string | undefined): boolean {
    if (!cookieHeader) return false;
    for (const part of cookieHeader.split(';')) {
      const eq = part.indexOf('=');
      if (eq < 0 || part.slice(0, eq).trim() !== this.cookieName) continue;
      if (timingSafeEqual(digest(part.slice(eq + 1).trim()), this.sessionDigest)) return true;
    }
    return false;
  }

  /** The credential and the commands switch, for a request whose Host and origin passed. */
  check(method: string, path: string, headers: RequestHeaders): Access {
    const cls = classify(method, path);
    const who = this.bearer(headers.authorization) ? 'token' : this.session(headers.cookie) ? 'session' : 'open';
    const open = cls === 'login' || (!this.everyPathGuarded && (cls === 'probe' || cls === 'other'));
    if (!open && who === 'open')
      return {
        ok: false,
        status: 401,
        error:
          'unauthorized: the dashboard signs in from the URL the daemon printed at start (`sextant dashboard` prints it again); the API takes `Authorization: Bearer <token>`',
      };
    if (cls === 'command' && !this.commands) return { ok: false, status: 403, error: 'commands are disabled on this daemon (daemon.http.commands: false)' };
    return { ok: true, who };
  }
}
