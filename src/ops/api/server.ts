// The daemon's one HTTP server (fastify): /health (liveness), /ready (reconciled and trading), /metrics
// (Prometheus text) and the control API under /api/v1 (reads, the event stream, journaled commands, the OpenAPI
// document), the dashboard's pages when enabled, and /login (the dashboard's sign-in link: the token given once,
// kept in an HttpOnly SameSite=Strict cookie). Every request passes auth.ts's checks before any route runs: its
// Host, the origin of a state change, the credential; a refusal is logged (one line per status, method and address
// a minute, 20 lines a minute at most, with the count of those not logged). Requests are checked with the route table's zod schemas,
// and a bad field answers 400 naming it. A failing source answers 500 without detail.
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyPluginAsync, type FastifyPluginCallback, type FastifyReply, type FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { systemClock, type Clock } from '../../util/clock.js';
import type { Actor, Control } from '../control.js';
import { AccessPolicy, LOGIN_PATH, type Access } from './auth.js';
import { openApiDocument } from './openapi.js';
import { API_PREFIX, ROUTES, type Route } from './routes.js';
import { EventStreams } from './sse.js';

export interface HealthSource {
  /** Liveness: polls are fresh enough. */
  health(): { ok: boolean; detail: Record<string, unknown> };
  /** Readiness: reconciled and trading. */
  ready(): { ok: boolean; detail: Record<string, unknown> };
  /** Refreshes gauges just before a scrape. */
  beforeScrape?(): Promise<void> | void;
}

/** The Prometheus registry's face: its content type and its text (prom-client's Registry fits). */
export interface MetricsText {
  readonly contentType: string;
  metrics(): Promise<string>;
}

export interface ControlServerOptions {
  health: HealthSource;
  metrics: MetricsText;
  /** The token: the bearer token, and what the dashboard's sign-in link carries (16 characters at least). */
  token: string;
  /** More Host names served (config daemon.http.allowedHosts). */
  allowedHosts?: readonly string[];
  /** More origins whose pages may change state (config daemon.http.allowedOrigins). */
  allowedOrigins?: readonly string[];
  /** Where a sign-in sends the browser (default `/`, the dashboard). */
  home?: string;
  /** Told each refusal worth a log line (at most one a minute for the same kind and caller, with the count in between). */
  onRefused?: (refusal: Refusal) => void;
  /** The control API's source; absent: only /health, /ready and /metrics are served. */
  control?: Control;
  /** Commands allowed (config `daemon.http.commands`, default true): 403 otherwise. */
  commands?: boolean;
  /** Times the event stream's heartbeat. */
  clock?: Clock;
  /** More routes on the same server (the dashboard's plugin). */
  plugins?: ReadonlyArray<FastifyPluginAsync | FastifyPluginCallback>;
  /** The API version the OpenAPI document states (default 1.0.0). */
  version?: string;
}

/** A zod failure as one line naming the field: `query.limit: Too big …`, `body.reason: a reason is required …`. */
function firstIssue(where: string, error: z.ZodError): string {
  const issue = error.issues[0]!;
  const path = issue.path.map(String).join('.');
  return `${where}${path ? `.${path}` : ''}: ${issue.message}`;
}

/** A refused request, as logged: never a credential, only what the caller sent to be refused. */
export interface Refusal {
  status: number;
  error: string;
  method: string;
  path: string;
  host: string | undefined;
  origin: string | undefined;
  /** Refusals not logged since the last line of the same kind and caller (and any the minute's cap held back). */
  suppressed: number;
}

/** The same refusal is logged at most this often. */
const REFUSAL_LOG_GAP_MS = 60_000;
/** Refusal lines a minute at most, whatever their kinds and callers. */
const REFUSAL_LINES_PER_MINUTE = 20;

const VIA = new Set<Actor['via']>(['cli', 'dashboard']);

export class ControlServer {
  private readonly app: FastifyInstance;
  private readonly access: AccessPolicy;
  private readonly streams: EventStreams | undefined;
  private readonly clock: Clock;
  /** Per kind of refusal and caller: when it was last logged, and how many were not since. */
  private readonly refusals = new Map<string, { atMs: number; suppressed: number }>();
  /** Refusal lines written this minute; refusals not logged by the minute's cap, told with the next line. */
  private refusalMinute = { startMs: -Infinity, lines: 0 };
  private unlogged = 0;
  url = '';

  constructor(private readonly opts: ControlServerOptions) {
    this.access = new AccessPolicy({
      token: opts.token,
      commands: opts.commands ?? true,
      ...(opts.allowedHosts ? { allowedHosts: opts.allowedHosts } : {}),
      ...(opts.allowedOrigins ? { allowedOrigins: opts.allowedOrigins } : {}),
    });
    this.clock = opts.clock ?? systemClock;
    // Connections are cut on close (an event stream would otherwise hold it open).
    this.app = Fastify({ logger: false, forceCloseConnections: true, bodyLimit: 64 * 1024 });
    this.streams = opts.control ? new EventStreams(opts.control, this.clock) : undefined;
    this.setUp();
  }

  private setUp(): void {
    const app = this.app;
    // An empty body is no body (a command without arguments); anything else must be JSON.
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, text, done) => {
      if (String(text).trim() === '') return done(null, undefined);
      try {
        done(null, JSON.parse(String(text)) as unknown);
      } catch {
        done(Object.assign(new Error('body: not valid JSON'), { statusCode: 400 }), undefined);
      }
    });
    app.addHook('onRequest', async (req, reply) => {
      // The route matched, not the raw URL: `/%6detrics` is /metrics too. Unmatched: the path as sent (a 404).
      const path = req.routeOptions.url ?? req.url.split('?')[0]!;
      const headers = req.headers;
      const access: Access =
        this.access.checkHost(headers.host) ?? this.access.checkOrigin(req.method, headers) ?? this.access.check(req.method, path, headers);
      if (!access.ok) {
        this.refused(req, path, access);
        if (access.status === 401) void reply.header('www-authenticate', 'Bearer');
        return reply.code(access.status).send({ error: access.error });
      }
      const via = String(headers['x-sextant-client'] ?? '') as Actor['via'];
      (req as FastifyRequest & { actor?: Actor }).actor = { via: VIA.has(via) ? via : access.who === 'session' ? 'dashboard' : 'api', who: access.who };
      return undefined;
    });
    app.setErrorHandler((err: { statusCode?: number; message?: string }, _req, reply) => {
      const status = typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
      void reply.code(status).send({ error: status === 500 ? 'internal error' : (err.message ?? 'bad request') });
    });
    app.setNotFoundHandler((_req, reply) => void reply.code(404).send({ error: 'not found' }));

    const { health, metrics } = this.opts;
    app.get('/health', async (_req, reply) => {
      const h = health.health();
      return reply.code(h.ok ? 200 : 503).send({ status: h.ok ? 'ok' : 'unhealthy', ...h.detail });
    });
    app.get('/ready', async (_req, reply) => {
      const r = health.ready();
      return reply.code(r.ok ? 200 : 503).send({ status: r.ok ? 'ready' : 'not ready', ...r.detail });
    });
    app.get('/metrics', async (_req, reply) => {
      await health.beforeScrape?.();
      return reply
        .code(200)
        .header('content-type', metrics.contentType)
        .send(await metrics.metrics());
    });

    app.get(LOGIN_PATH, async (req, reply) => {
      void reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
      const token = (req.query as Record<string, unknown> | undefined)?.token;
      if (typeof token !== 'string' || !this.access.tokenMatches(token)) {
        this.refused(req, LOGIN_PATH, { ok: false, status: 401, error: 'a sign-in link with a wrong token' });
        return reply
          .code(401)
          .type('text/plain; charset=utf-8')
          .send(
            "This sign-in link does not hold the daemon's token (a token generated at start changes at every start).\nOpen the URL the daemon printed at its latest start, or run `sextant dashboard` for it.\n",
          );
      }
      const cookie = `${this.access.cookieName}=${this.access.sessionValue}; Path=/; HttpOnly; SameSite=Strict`;
      return reply
        .code(303)
        .header('set-cookie', cookie)
        .header('location', this.opts.home ?? '/')
        .send();
    });

    if (this.opts.control) for (const route of ROUTES) this.addRoute(route, this.opts.control);
    for (const plugin of this.opts.plugins ?? []) void app.register(plugin as FastifyPluginAsync);
  }

  private addRoute(route: Route, control: Control): void {
    const document = route.ok === 'document' ? openApiDocument(this.opts.version ?? '1.0.0') : undefined;
    this.app.route({
      method: route.method,
      url: `${API_PREFIX}${route.path}`,
      handler: async (req: FastifyRequest, reply: FastifyReply) => {
        const input: Record<'params' | 'query' | 'body', Record<string, unknown>> = { params: {}, query: {}, body: {} };
        for (const where of ['params', 'query', 'body'] as const) {
          const schema = route[where];
          if (!schema) continue;
          const parsed = schema.safeParse(req[where] ?? {});
          if (!parsed.success) return reply.code(400).send({ error: firstIssue(where, parsed.error) });
          input[where] = parsed.data as Record<string, unknown>;
        }
        if (document) return reply.code(200).send(document);
        if (route.ok === 'stream') {
          reply.hijack();
          this.streams!.attach(reply.raw);
          return reply;
        }
        const actor = (req as FastifyRequest & { actor?: Actor }).actor ?? { via: 'api', who: 'loopback' };
        const out = await route.handle!({ control, actor, ...input });
        // A page of ours: its styles only, no script, nothing framed, not sniffed.
        if (route.ok === 'page' && out.status === 200)
          reply
            .header('content-type', 'text/html; charset=utf-8')
            .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
            .header('x-content-type-options', 'nosniff');
        return reply.code(out.status).send(out.body);
      },
    });
  }

  /**
   * One log line for a refusal, unless one of the same status and method from the same address was logged within the
   * last minute (the Host, Origin and Referer are the caller's to vary: they are logged, not keyed on), and at most
   * REFUSAL_LINES_PER_MINUTE lines a minute in all; the next line says how many were not logged.
   */
  private refused(req: FastifyRequest, path: string, access: Extract<Access, { ok: false }>): void {
    if (!this.opts.onRefused) return;
    const key = `${access.status} ${req.method} ${req.socket.remoteAddress ?? ''}`;
    const now = this.clock.now();
    if (now - this.refusalMinute.startMs >= REFUSAL_LOG_GAP_MS) this.refusalMinute = { startMs: now, lines: 0 };
    const seen = this.refusals.get(key);
    if ((seen && now - seen.atMs < REFUSAL_LOG_GAP_MS) || this.refusalMinute.lines >= REFUSAL_LINES_PER_MINUTE) {
      if (seen) seen.suppressed++;
      else this.unlogged++;
      return;
    }
    if (this.refusals.size > 1000) this.refusals.clear();
    this.refusals.set(key, { atMs: now, suppressed: 0 });
    this.refusalMinute.lines++;
    const suppressed = (seen?.suppressed ?? 0) + this.unlogged;
    this.unlogged = 0;
    this.opts.onRefused({
      status: access.status,
      error: access.error,
      method: req.method,
      path,
      host: req.headers.host,
      origin: req.headers.origin ?? req.headers.referer,
      suppressed,
    });
  }

  async listen(port: number, host: string): Promise<string> {
    this.access.boundTo(host, port);
    await this.app.listen({ port, host });
    const a = this.app.server.address() as AddressInfo;
    this.access.boundTo(host, a.port);
    this.url = `http://${a.address.includes(':') ? `[${a.address}]` : a.address}:${a.port}`;
    return this.url;
  }

  /** Event streams ended, then every connection cut and the server closed. */
  async close(): Promise<void> {
    this.streams?.closeAll();
    await this.app.close();
  }
}
