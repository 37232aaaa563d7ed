// The daemon's HTTP endpoints: /health (liveness), /ready (reconciled and trading), /metrics (Prometheus,
// prom-client). Loopback by default; bound elsewhere, every path needs the bearer token (health and readiness
// show strategies, fences and trading state); on loopback, /metrics needs it when one is set.
import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { close, listen } from '../util/http-server.js';

export class Metrics {
  readonly registry = new Registry();
  readonly requests = new Counter({ name: 'sextant_exchange_requests_total', help: 'Exchange requests by endpoint and outcome', labelNames: ['endpoint', 'outcome'], registers: [this.registry] });
  readonly rateLimited = new Counter({ name: 'sextant_exchange_429_total', help: 'Answers 429 from the venue', registers: [this.registry] });
  readonly intents = new Counter({ name: 'sextant_intents_total', help: 'Intents by strategy and kind', labelNames: ['strategy', 'kind'], registers: [this.registry] });
  readonly events = new Counter({ name: 'sextant_execution_events_total', help: 'Execution events by type', labelNames: ['type'], registers: [this.registry] });
  readonly denials = new Counter({ name: 'sextant_risk_denials_total', help: 'Risk denials by reason', labelNames: ['reason'], registers: [this.registry] });
  readonly pollAge = new Gauge({ name: 'sextant_poll_age_seconds', help: 'Age of the latest successful poll', labelNames: ['poll'], registers: [this.registry] });
  readonly openOrders = new Gauge({ name: 'sextant_open_orders', help: 'Open orders in the journal', registers: [this.registry] });
  readonly tradingState = new Gauge({ name: 'sextant_trading_halted', help: '1 when trading is halted (kill switch or fence)', registers: [this.registry] });
  readonly strategyErrors = new Gauge({ name: 'sextant_strategy_errors', help: 'Errors per strategy instance', labelNames: ['strategy'], registers: [this.registry] });
  readonly balance = new Gauge({ name: 'sextant_balance', help: 'Balance (total) by surface and asset', labelNames: ['surface', 'asset'], registers: [this.registry] });
  readonly position = new Gauge({ name: 'sextant_position_size', help: 'Open position size (base)', labelNames: ['symbol', 'side'], registers: [this.registry] });
  readonly weight = new Counter({ name: 'sextant_exchange_weight_total', help: 'Weight spent by endpoint and pool', labelNames: ['endpoint', 'pool'], registers: [this.registry] });
  readonly equity = new Gauge({ name: 'sextant_equity', help: 'Equity in the quote currency: balances at the last prices plus unrealised PnL', labelNames: ['surface'], registers: [this.registry] });
  readonly limiterTokens = new Gauge({ name: 'sextant_limiter_tokens', help: 'Weight the limiter can start now, per pool', labelNames: ['pool'], registers: [this.registry] });
  readonly limiterQueued = new Gauge({ name: 'sextant_limiter_queued', help: 'Requests waiting in the limiter, per pool', labelNames: ['pool'], registers: [this.registry] });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'sextant_' });
  }
}

export interface HealthSource {
  /** Liveness: polls are fresh enough. */
  health(): { ok: boolean; detail: Record<string, unknown> };
  /** Readiness: reconciled and trading. */
  ready(): { ok: boolean; detail: Record<string, unknown> };
  /** Refreshes gauges just before a scrape. */
  beforeScrape?(): Promise<void> | void;
}

/** Loopback addresses: only this machine reaches them. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^(::ffff:)?127(\.\d{1,3}){3}$/.test(host);
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

export class OpsServer {
  private readonly server: http.Server;
  private readonly tokenDigest: Buffer | undefined;
  /** Bound beyond loopback: every path needs the token. */
  private everyPathGuarded = true;
  url = '';

  constructor(
    private readonly metrics: Metrics,
    private readonly source: HealthSource,
    token: string | undefined,
  ) {
    // Only the digest is kept: equal lengths for timingSafeEqual, and the token itself is not held.
    this.tokenDigest = token ? digest(token) : undefined;
    this.server = http.createServer((req, res) =>
      // A failing source (a metrics scrape while Redis is down) answers 500; it never becomes an unhandled rejection.
      this.handle(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'internal error' }));
      }),
    );
  }

  async listen(port: number, host: string): Promise<string> {
    const loopback = isLoopback(host);
    if (!loopback && !this.tokenDigest) throw new Error(`binding ${host} needs a bearer token (environment variable): /health, /ready and /metrics would be open to the network`);
    this.everyPathGuarded = !loopback;
    this.url = await listen(this.server, port, host);
    return this.url;
  }

  /** `Authorization: Bearer <token>` (the scheme in any case), compared in constant time. */
  private authorized(header: string | undefined): boolean {
    if (!this.tokenDigest) return false;
    const m = /^bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
    return m !== null && timingSafeEqual(digest(m[1]!), this.tokenDigest);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const guarded = this.everyPathGuarded || (path === '/metrics' && this.tokenDigest !== undefined);
    if (guarded && !this.authorized(req.headers.authorization)) {
      res.setHeader('www-authenticate', 'Bearer');
      return json(401, { error: 'unauthorized' });
    }
    if (path === '/health') {
      const h = this.source.health();
      return json(h.ok ? 200 : 503, { status: h.ok ? 'ok' : 'unhealthy', ...h.detail });
    }
    if (path === '/ready') {
      const r = this.source.ready();
      return json(r.ok ? 200 : 503, { status: r.ok ? 'ready' : 'not ready', ...r.detail });
    }
    if (path === '/metrics') {
      await this.source.beforeScrape?.();
      res.writeHead(200, { 'content-type': this.metrics.registry.contentType });
      res.end(await this.metrics.registry.metrics());
      return;
    }
    json(404, { error: 'not found' });
  }

  async close(): Promise<void> {
    await close(this.server);
  }
}
