// The daemon's one HTTP server (fastify): /health (liveness), /ready (reconciled and trading), /metrics
// (Prometheus text) and the control API under /api/v1 (reads, the event stream, journaled commands, the OpenAPI
// document), and the dashboard's pages when enabled. Who may call what is auth.ts's; requests are checked with the
// route table's zod schemas, and a bad field answers 400 naming it. A failing source answers 500 without detail.
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyPluginAsync, type FastifyPluginCallback, type FastifyReply, type FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { systemClock, type Clock } from '../../util/clock.js';
import type { Actor, Control } from '../control.js';
import { AccessPolicy } from './auth.js';
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
  /** The bearer token; absent: none set. */
  token: string | undefined;
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

const VIA = new Set<Actor['via']>(['cli', 'dashboard']);

export class ControlServer {
  private readonly app: FastifyInstance;
  private readonly access: AccessPolicy;
  private readonly streams: EventStreams | undefined;
  url = '';

  constructor(private readonly opts: ControlServerOptions) {
    this.access = new AccessPolicy(opts.token, opts.commands ?? true);
    // Connections are cut on close (an event stream would otherwise hold it open).
    this.app = Fastify({ logger: false, forceCloseConnections: true, bodyLimit: 64 * 1024 });
    this.streams = opts.control ? new EventStreams(opts.control, opts.clock ?? systemClock) : undefined;
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
      const access = this.access.check(req.method, path, req.headers.authorization);
      if (!access.ok) {
        if (access.status === 401) void reply.header('www-authenticate', 'Bearer');
        return reply.code(access.status).send({ error: access.error });
      }
      const via = String(req.headers['x-sextant-client'] ?? '') as Actor['via'];
      (req as FastifyRequest & { actor?: Actor }).actor = { via: VIA.has(via) ? via : 'api', who: access.who };
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
      return reply.code(200).header('content-type', metrics.contentType).send(await metrics.metrics());
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
        return reply.code(out.status).send(out.body);
      },
    });
  }

  async listen(port: number, host: string): Promise<string> {
    this.access.boundTo(host);
    await this.app.listen({ port, host });
    const a = this.app.server.address() as AddressInfo;
    this.url = `http://${a.address.includes(':') ? `[${a.address}]` : a.address}:${a.port}`;
    return this.url;
  }

  /** Event streams ended, then every connection cut and the server closed. */
  async close(): Promise<void> {
    this.streams?.closeAll();
    await this.app.close();
  }
}
