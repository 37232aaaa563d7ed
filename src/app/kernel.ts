// The composition root: the only place that chooses which exchange client and data source are wired.
import { closeSync, mkdirSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { dirname } from 'node:path';
import type { LoadedConfig } from '../config/load.js';
import type { SimConfig } from '../config/schema.js';
import type { Credentials } from '../domain/credentials.js';
import { Decimal } from '../domain/decimal.js';
import type { RiskLimits } from '../execution/risk.js';
import { SqliteJournal } from '../journal/sqlite-journal.js';
import type { SimAccounts } from '../exchange/sim/engine.js';
import { DEFAULT_INSTRUMENTS, type SimInstrumentSpec } from '../exchange/sim/instruments.js';
import { ReplayMarket, SyntheticMarket, type MarketSource, type ReplayRecord } from '../exchange/sim/market.js';
import { SimServer } from '../exchange/sim/server.js';
import { SimulatedExchange } from '../exchange/sim/simulated-exchange.js';
import { LiveClient } from '../exchange/live/live-client.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';

export function createLiveClient(loaded: LoadedConfig, logger: Logger, clock: Clock, onAttempt?: (endpoint: string, outcome: string) => void): LiveClient {
  const ex = loaded.config.exchange;
  const creds = loaded.credentials;
  return new LiveClient({
    spotBaseUrl: ex.spotBaseUrl,
    futuresBaseUrl: ex.futuresBaseUrl,
    ...(creds ? { credentials: creds } : {}),
    locale: ex.locale,
    timeoutMs: ex.timeoutMs,
    retry: ex.retry,
    maxPages: ex.maxPages,
    rateLimit: {
      spot: ex.rateLimit.spot,
      futures: ex.rateLimit.futures,
      orderRequests: ex.rateLimit.orderRequests,
      usableFraction: ex.rateLimit.usableFraction,
      cooloffMs: ex.rateLimit.cooloffMs,
      ...(ex.rateLimit.redis ? { redis: ex.rateLimit.redis } : {}),
    },
    clock,
    logger,
    ...(onAttempt ? { onAttempt } : {}),
  });
}

/** Credentials the simulator accepts when none are configured (documented in the README; never valid anywhere else). */
export const SIM_DEMO_CREDENTIALS: Credentials = { apiKey: 'sextant-demo-key', apiSecret: 'sextant-demo-secret', passphrase: 'sextant-demo-pass' };

function simSpecs(sim: SimConfig): SimInstrumentSpec[] {
  return sim.instruments ?? DEFAULT_INSTRUMENTS;
}

/**
 * Reads a replay file (one JSON object per line: ts, symbol, price, size[, bid, ask, buyerMaker]) a chunk at a
 * time, handing each record to `onRecord`: a file of any size, never held whole in memory.
 */
export function eachReplayRecord(path: string, onRecord: (r: ReplayRecord) => void): void {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    const decoder = new StringDecoder('utf8');
    let rest = '';
    let lineNo = 0;
    const line = (text: string) => {
      lineNo++;
      if (text.trim() === '') return;
      let r: Record<string, unknown>;
      try {
        r = JSON.parse(text) as Record<string, unknown>;
      } catch {
        throw new Error(`${path}:${lineNo}: not a JSON object`);
      }
      if (typeof r.ts !== 'number' || typeof r.symbol !== 'string' || typeof r.price !== 'string' || typeof r.size !== 'string') {
        throw new Error(`${path}:${lineNo}: expected {"ts": number, "symbol": string, "price": string, "size": string}`);
      }
      onRecord(r as unknown as ReplayRecord);
    };
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      const text = rest + decoder.write(buf.subarray(0, n));
      let from = 0;
      for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', from)) {
        line(text.slice(from, nl));
        from = nl + 1;
      }
      rest = text.slice(from);
    }
    rest += decoder.end();
    if (rest !== '') line(rest);
  } finally {
    closeSync(fd);
  }
}

/** Reads a whole replay file into records (small files: the simulator's replay, tests). */
export function readReplayFile(path: string): ReplayRecord[] {
  const out: ReplayRecord[] = [];
  eachReplayRecord(path, (r) => out.push(r));
  return out;
}

export function createMarket(sim: SimConfig, startMs: number): MarketSource {
  const specs = simSpecs(sim);
  if (sim.replayFile) return new ReplayMarket(specs, readReplayFile(sim.replayFile));
  return new SyntheticMarket(specs, { seed: sim.seed, startMs, tickIntervalMs: sim.tickIntervalMs });
}

function simAccounts(sim: SimConfig): SimAccounts {
  return { spot: sim.accounts.spot, futuresCollateral: sim.accounts.futuresCollateral, leverage: sim.accounts.leverage };
}

/** The in-process simulated exchange (backtests, dry-run), starting at `startMs` of virtual time. */
export function createSimulatedExchange(loaded: LoadedConfig, startMs: number): SimulatedExchange {
  return new SimulatedExchange(createMarket(loaded.config.sim, startMs), simAccounts(loaded.config.sim), loaded.config.sim.retainOrders);
}

/** The simulator's HTTP face on the wall clock. */
export function createSimServer(loaded: LoadedConfig, logger: Logger, clock: Clock, onRequest?: (method: string, path: string) => void): SimServer {
  const sim = loaded.config.sim;
  return new SimServer({
    market: createMarket(sim, clock.now()),
    accounts: simAccounts(sim),
    credentials: loaded.credentials ?? SIM_DEMO_CREDENTIALS,
    budget: { spot: sim.budget.spot, futures: sim.budget.futures, windowMs: sim.budget.windowMs, orderRequestsPerSecond: sim.budget.orderRequestsPerSecond },
    clock,
    logger,
    retain: sim.retainOrders,
    ...(onRequest ? { onRequest } : {}),
  });
}

/** The risk limits of the configuration, as exact values. */
export function riskLimits(loaded: LoadedConfig): RiskLimits {
  const r = loaded.config.risk;
  return {
    maxNotionalPerOrder: Decimal.from(r.maxNotionalPerOrder), maxNotionalPerSymbol: Decimal.from(r.maxNotionalPerSymbol),
    maxOpenOrdersPerSymbol: r.maxOpenOrdersPerSymbol, maxOpenOrdersPerStrategy: r.maxOpenOrdersPerStrategy,
    priceBandPct: Decimal.from(r.priceBandPct), staleAfterMs: r.staleAfterMs, maxOrdersPerMinute: r.maxOrdersPerMinute,
    maxDrawdownPct: Decimal.from(r.maxDrawdownPct),
  };
}

export function openJournal(loaded: LoadedConfig): SqliteJournal {
  const j = loaded.config.journal;
  if (j.path !== ':memory:') mkdirSync(dirname(j.path), { recursive: true });
  return new SqliteJournal(j.path, { clientOidPrefix: j.clientOidPrefix });
}
