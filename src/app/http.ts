// The daemon's metrics (Prometheus, prom-client) and its HTTP server: /health (liveness), /ready (reconciled and
// trading), /metrics, the control API and the dashboard (src/ops/api/). Its token (every credential derives from it:
// src/ops/api/auth.ts) comes from the environment or a secret file; absent, one is generated at start and written,
// mode 0600, to a file the commands that talk to the daemon read (beside the journal, or daemon.http.tokenFile).
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Config } from '../config/schema.js';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { ControlServer, type ControlServerOptions, type HealthSource } from '../ops/api/server.js';
import { registerSecret } from '../util/secrets.js';

export class Metrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'sextant_exchange_requests_total',
    help: 'Exchange requests by endpoint and outcome',
    labelNames: ['endpoint', 'outcome'],
    registers: [this.registry],
  });
  readonly rateLimited = new Counter({ name: 'sextant_exchange_429_total', help: 'Answers 429 from the venue', registers: [this.registry] });
  readonly intents = new Counter({
    name: 'sextant_intents_total',
    help: 'Intents by strategy and kind',
    labelNames: ['strategy', 'kind'],
    registers: [this.registry],
  });
  readonly events = new Counter({ name: 'sextant_execution_events_total', help: 'Execution events by type', labelNames: ['type'], registers: [this.registry] });
  readonly denials = new Counter({ name: 'sextant_risk_denials_total', help: 'Risk denials by reason', labelNames: ['reason'], registers: [this.registry] });
  readonly pollAge = new Gauge({
    name: 'sextant_poll_age_seconds',
    help: 'Age of the latest successful poll',
    labelNames: ['poll'],
    registers: [this.registry],
  });
  readonly openOrders = new Gauge({ name: 'sextant_open_orders', help: 'Open orders in the journal', registers: [this.registry] });
  readonly tradingState = new Gauge({ name: 'sextant_trading_halted', help: '1 when trading is halted (kill switch or fence)', registers: [this.registry] });
  readonly strategyErrors = new Gauge({
    name: 'sextant_strategy_errors',
    help: 'Errors per strategy instance',
    labelNames: ['strategy'],
    registers: [this.registry],
  });
  readonly balance = new Gauge({
    name: 'sextant_balance',
    help: 'Balance (total) by surface and asset',
    labelNames: ['surface', 'asset'],
    registers: [this.registry],
  });
  readonly position = new Gauge({
    name: 'sextant_position_size',
    help: 'Open position size (base)',
    labelNames: ['symbol', 'side'],
    registers: [this.registry],
  });
  readonly weight = new Counter({
    name: 'sextant_exchange_weight_total',
    help: 'Weight spent by endpoint and pool',
    labelNames: ['endpoint', 'pool'],
    registers: [this.registry],
  });
  readonly equity = new Gauge({
    name: 'sextant_equity',
    help: 'Equity in the quote currency: balances at the last prices plus unrealised PnL',
    labelNames: ['surface'],
    registers: [this.registry],
  });
  readonly limiterTokens = new Gauge({
    name: 'sextant_limiter_tokens',
    help: 'Weight the limiter can start now, per pool',
    labelNames: ['pool'],
    registers: [this.registry],
  });
  readonly limiterQueued = new Gauge({
    name: 'sextant_limiter_queued',
    help: 'Requests waiting in the limiter, per pool',
    labelNames: ['pool'],
    registers: [this.registry],
  });
  readonly liquidationDistance = new Gauge({
    name: 'sextant_liquidation_distance_pct',
    help: 'Distance from the mark to the liquidation price, in percent of the mark, per futures position',
    labelNames: ['symbol', 'side'],
    registers: [this.registry],
  });
  readonly marginRate = new Gauge({
    name: 'sextant_margin_rate',
    help: 'Futures account equity (collateral + unrealised PnL at mark) / position value',
    registers: [this.registry],
  });
  readonly maintenanceRate = new Gauge({
    name: 'sextant_maintenance_rate',
    help: 'Maintenance margin / position value: the margin rate at which the account is liquidated',
    registers: [this.registry],
  });
  readonly fundingTotal = new Gauge({
    name: 'sextant_funding_total',
    help: "Funding settled per contract over the journal's life, as a change of collateral (negative: paid)",
    labelNames: ['symbol'],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'sextant_' });
  }
}

import { isLoopback } from '../ops/api/auth.js';

export { isLoopback };

/** Where the daemon of a config listens, seen from this machine (an unspecified address is reached on loopback). */
export function reachableUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' || host === '[::]' ? '::1' : host;
  return `http://${reachable.includes(':') && !reachable.startsWith('[') ? `[${reachable}]` : reachable}:${port}`;
}
export type { HealthSource } from '../ops/api/server.js';

/** The ops server's extras: the control API (with its commands switch and clock), and more routes (the dashboard). */
export type OpsServerExtras = Pick<
  ControlServerOptions,
  'control' | 'commands' | 'clock' | 'plugins' | 'version' | 'allowedHosts' | 'allowedOrigins' | 'home' | 'onRefused'
>;

/**
 * The daemon's HTTP server (src/ops/api/server.ts) with the metrics registry: /health, /ready, /metrics, and with
 * a Control, the control API under /api/v1.
 */
export class OpsServer extends ControlServer {
  constructor(metrics: Metrics, source: HealthSource, token: string, extras: OpsServerExtras = {}) {
    super({ health: source, metrics: metrics.registry, token, ...extras });
  }
}

/**
 * The bearer token from the environment: the variable named by daemon.http.tokenEnv, or a file named by
 * `<VARIABLE>_FILE` (docker secrets; its surrounding whitespace dropped). Both set, or an unreadable or empty file:
 * an error naming the variable, never the value.
 */
export function httpToken(env: Readonly<Record<string, string | undefined>>, tokenEnv: string): string | undefined {
  const direct = env[tokenEnv];
  const file = env[`${tokenEnv}_FILE`];
  if (direct && file) throw new Error(`set either ${tokenEnv} or ${tokenEnv}_FILE, not both`);
  if (direct) {
    registerSecret(direct);
    return direct;
  }
  if (!file) return undefined;
  let value: string;
  try {
    value = readFileSync(file, 'utf8').trim();
  } catch (err) {
    throw new Error(`cannot read ${tokenEnv}_FILE ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  if (value === '') throw new Error(`${tokenEnv}_FILE ${file} is empty`);
  registerSecret(value);
  return value;
}

/** The daemon's token: configured (environment or secret file), or generated at this start. */
export interface HttpCredential {
  token: string;
  /** Generated at start: written to the token file, and its sign-in link printed at start. */
  generated: boolean;
}

/**
 * The token of the environment (httpToken), else, bound to loopback, a new random one (256 bits), registered as a
 * secret either way. Bound beyond loopback a token must be configured: probes and scrapes from elsewhere need one that
 * outlives a restart, and a standby's would be written nowhere.
 */
export function daemonToken(env: Readonly<Record<string, string | undefined>>, tokenEnv: string, host: string): HttpCredential {
  const given = httpToken(env, tokenEnv);
  if (given !== undefined) {
    if (given.length < 16) throw new Error(`${tokenEnv} is too short: 16 characters at least (\`openssl rand -base64 32\` makes one)`);
    return { token: given, generated: false };
  }
  if (!isLoopback(host)) {
    throw new Error(
      `binding ${host} needs a token in ${tokenEnv} (or ${tokenEnv}_FILE): /health, /ready, /metrics and the control API would answer the network with one generated anew at every start`,
    );
  }
  const token = randomBytes(32).toString('base64url');
  registerSecret(token);
  return { token, generated: true };
}

/**
 * The file a generated token is written to: daemon.http.tokenFile, else beside the SQLite journal
 * (`<journal dir>/http-<port>.token`), else `data/http-<port>.token` (a PostgreSQL or in-memory journal).
 */
export function httpTokenFile(cfg: Pick<Config, 'daemon' | 'journal'>, port: number): string {
  if (cfg.daemon.http.tokenFile) return cfg.daemon.http.tokenFile;
  const journal = cfg.journal.path;
  return join(journal && journal !== ':memory:' ? dirname(journal) : 'data', `http-${port}.token`);
}

/** Writes the token, mode 0600 from its first byte, in place of the file at once (rename); returns its removal. */
export function writeTokenFile(file: string, token: string): () => void {
  mkdirSync(dirname(file), { recursive: true });
  // A name no other process picks (two containers may both be pid 1 on one volume); created, never followed (O_EXCL).
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temp, `${token}\n`, { mode: 0o600, flag: 'wx' });
  renameSync(temp, file);
  // Removed at stop only while it still holds this token (a daemon started since on the same port wrote its own).
  return () => {
    try {
      if (readFileSync(file, 'utf8').trim() === token) rmSync(file, { force: true });
    } catch {
      // gone already
    }
  };
}

/** The token a command uses to reach a daemon: the environment's, else the file the daemon wrote; undefined: neither. */
export function clientToken(env: Readonly<Record<string, string | undefined>>, cfg: Pick<Config, 'daemon' | 'journal'>): string | undefined {
  const given = httpToken(env, cfg.daemon.http.tokenEnv);
  if (given !== undefined) return given;
  const file = httpTokenFile(cfg, cfg.daemon.http.port);
  let value: string;
  try {
    value = readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
  if (value === '') return undefined;
  registerSecret(value);
  return value;
}

/** The dashboard's sign-in link: opens it with the session cookie set. */
export function signInUrl(baseUrl: string, token: string): string {
  return `${baseUrl}/login?token=${encodeURIComponent(token)}`;
}
