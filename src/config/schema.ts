// The configuration schema (zod, strict: unknown keys fail) and every default, in one place.
import { z } from 'zod';

const positiveInt = z.number().int().positive();

const windowBudget = (budget: number, windowMs: number) =>
  z.strictObject({
    budget: positiveInt.default(budget).describe('weight (or requests) allowed in any interval of windowMs'),
    windowMs: positiveInt.default(windowMs),
  }).prefault({});

const surfaceBudget = (ip: number, uid: number) =>
  z.strictObject({ ip: windowBudget(ip, 10_000), uid: windowBudget(uid, 10_000) }).prefault({});

const httpUrl = z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' });

export const rateLimitSchema = z
  .strictObject({
    // Venue budgets: futures 1000 weight / 10 s per IP and per UID; spot 500 / 10 s.
    spot: surfaceBudget(500, 500),
    futures: surfaceBudget(1000, 1000),
    // Place / cancel / trigger endpoints: at most 10 requests per second.
    orderRequests: windowBudget(10, 1000),
    usableFraction: z.number().gt(0).max(1).default(0.9),
    cooloffMs: positiveInt.default(10_000),
    redis: z
      .strictObject({
        url: z.url({ protocol: /^rediss?$/, error: 'expected a redis:// URL' }),
        keyPrefix: z.string().regex(/^[A-Za-z0-9:_-]+$/).default('sextant'),
      })
      .optional(),
  })
  .prefault({});

export const exchangeSchema = z
  .strictObject({
    spotBaseUrl: httpUrl.default('https://api-spot.weex.com'),
    futuresBaseUrl: httpUrl.default('https://api-contract.weex.com'),
    locale: z.string().regex(/^[a-z]{2}-[A-Z]{2}$/, 'expected a locale like en-US').default('en-US'),
    timeoutMs: positiveInt.max(120_000).default(10_000),
    retry: z
      .strictObject({
        attempts: positiveInt.max(10).default(3),
        baseDelayMs: positiveInt.default(250),
        maxDelayMs: positiveInt.default(5_000),
      })
      .prefault({}),
    maxPages: positiveInt.max(1000).default(20),
    /** How spot open orders are read: S15 (the venue's current-orders endpoint) or S1 (order history pages). */
    spotOpenOrders: z.enum(['S15', 'S1']).default('S15'),
    /**
     * Authentication and permission errors in a row (40001–40012, 40014, 40018, 40022, 521) before signed
     * requests stop: the venue disables keys after frequent invalid requests. A success clears the count.
     */
    authFailuresBeforeHalt: positiveInt.max(100).default(3),
    rateLimit: rateLimitSchema,
  })
  .prefault({});

/** A decimal amount: a quoted string ("0.001"), or a plain integer. Unquoted fractions would pass through a float. */
const decimalText = z.union([
  z.string().regex(/^\d+(\.\d+)?$/, 'expected a decimal number as a string, e.g. "0.001"'),
  z.number().int().nonnegative().transform((n) => String(n)),
]);

const instrumentSpec = z.strictObject({
  surface: z.enum(['spot', 'futures']),
  symbol: z.string().regex(/^([A-Z0-9]+_SPBL|cmt_[a-z0-9]+)$/, 'expected BASEQUOTE_SPBL (spot) or cmt_basequote (futures)'),
  base: z.string().min(1),
  quote: z.string().min(1),
  priceDecimals: z.number().int().min(0).max(12),
  sizeDecimals: z.number().int().min(0).max(12),
  priceEndStep: z.number().int().min(1).max(9).default(1),
  minSize: decimalText,
  maxSize: decimalText,
  makerFeeRate: decimalText,
  takerFeeRate: decimalText,
  limitPriceRatio: decimalText.default('0.05'),
  contractValue: decimalText.optional(),
  maxPositionSize: decimalText.optional(),
  maxLeverage: z.number().int().min(1).max(500).optional(),
  startPrice: decimalText,
  volBps: z.number().int().min(1).max(1000).default(3),
});

export const simSchema = z
  .strictObject({
    /** `sextant run` starts the simulator on loopback and trades against it (the base URLs are ignored). */
    embedded: z.boolean().default(false),
    seed: z.number().int().min(0).max(0xffffffff).default(42),
    host: z.string().min(1).default('127.0.0.1'),
    port: z.number().int().min(0).max(65535).default(8787),
    /** One market tick per symbol every tickIntervalMs. */
    tickIntervalMs: positiveInt.default(250),
    /** Final orders and fills the simulator keeps per symbol for history reads (bounds its memory). */
    retainOrders: positiveInt.default(10_000),
    /** Replay recorded ticks (JSON lines: ts, symbol, price, size[, bid, ask, buyerMaker]) instead of the synthetic market. */
    replayFile: z.string().min(1).optional(),
    accounts: z
      .strictObject({
        spot: z.record(z.string().regex(/^[A-Z0-9]+$/), decimalText).default({ USDT: '100000', BTC: '1', ETH: '20', SOL: '500' }),
        futuresCollateral: decimalText.default('100000'),
        leverage: z.number().int().min(1).max(125).default(20),
      })
      .prefault({}),
    /** Replaces the built-in instruments when given. */
    instruments: z.array(instrumentSpec).min(1).optional(),
    budget: z
      .strictObject({
        spot: z.strictObject({ ip: positiveInt.default(500), uid: positiveInt.default(500) }).prefault({}),
        futures: z.strictObject({ ip: positiveInt.default(1000), uid: positiveInt.default(1000) }).prefault({}),
        windowMs: positiveInt.default(10_000),
        orderRequestsPerSecond: positiveInt.default(10),
      })
      .prefault({}),
  })
  .prefault({});

export const riskSchema = z
  .strictObject({
    maxNotionalPerOrder: decimalText.default('10000'),
    maxNotionalPerSymbol: decimalText.default('50000'),
    maxOpenOrdersPerSymbol: positiveInt.default(50),
    maxOpenOrdersPerStrategy: positiveInt.default(100),
    /** Percent around the reference price; the instrument's own limit ratio applies when tighter. */
    priceBandPct: decimalText.default('2'),
    staleAfterMs: positiveInt.default(10_000),
    /**
     * Orders that reached the venue in any minute before the breaker latches halted. The shipped config peaks at
     * about 105 a minute (measured: `npm run reliability -- rate`); the default leaves ~3× headroom while a
     * runaway strategy (the venue takes 10 order requests a second, up to 20 orders each) is stopped within a minute.
     */
    maxOrdersPerMinute: positiveInt.default(300),
    maxDrawdownPct: decimalText.default('10'),
    /** Orders one place intent may carry; a larger intent is refused whole (a runaway strategy stalls nothing). */
    maxOrdersPerIntent: positiveInt.default(50),
    /**
     * A price that moves more than this percent from the previous accepted one, or lies outside the ticker's own
     * bid/ask, is an outlier: it is not used for equity (nor the drawdown kill switch) until a second reading confirms it.
     */
    outlierPct: decimalText.default('20'),
  })
  .prefault({});

export const journalSchema = z
  .strictObject({
    path: z.string().min(1).default('data/journal.sqlite'),
    /** Prefix of every client id (tells instances sharing one API key apart). */
    clientOidPrefix: z.string().regex(/^[A-Za-z0-9]{1,8}$/, 'expected 1-8 characters of [A-Za-z0-9]').default('sx'),
  })
  .prefault({});

export const executionSchema = z
  .strictObject({
    /** An order with no answer is not looked for as missing before this. */
    graceMs: positiveInt.default(10_000),
    /** Lookups without it, after the grace window, before an order is marked lost. */
    lostAfterChecks: positiveInt.default(3),
    /** Further lookups without a lost order before it is final (`not-placed`): it stops being checked. */
    notPlacedAfterChecks: positiveInt.default(10),
    /**
     * An order the journal holds as open (or being canceled) that the venue has not known for this long and for
     * vanishAfterChecks lookups becomes final (`vanished`), with the evidence in its history.
     */
    vanishAfterMs: positiveInt.default(120_000),
    vanishAfterChecks: positiveInt.default(5),
  })
  .prefault({});

export const strategySchema = z.strictObject({
  /** Instance id: tags its client ids, logs and metrics. */
  id: z.string().regex(/^[A-Za-z0-9_-]{1,24}$/, 'expected 1-24 characters of [A-Za-z0-9_-]'),
  /** Module name, looked up in strategyDirs. */
  name: z.string().regex(/^[A-Za-z0-9._-]+$/),
  symbols: z.array(z.string().min(1)).min(1),
  /** Checked by the strategy's own schema when it loads. */
  params: z.record(z.string(), z.unknown()).default({}),
  /** Scheduled hooks: hook name -> cron expression (seconds field allowed). */
  schedule: z.record(z.string(), z.string()).default({}),
});

export const daemonSchema = z
  .strictObject({
    http: z
      .strictObject({
        host: z.string().min(1).default('127.0.0.1'),
        port: z.number().int().min(0).max(65535).default(9464),
        /** Required when bound beyond loopback: `Authorization: Bearer <token>` for every path (/health, /ready, /metrics); on loopback, for /metrics when set. */
        tokenEnv: z.string().regex(/^[A-Z0-9_]+$/).default('SEXTANT_HTTP_TOKEN'),
      })
      .prefault({}),
    polls: z
      .strictObject({
        tickersMs: positiveInt.default(1000),
        ordersMs: positiveInt.default(2000),
        balancesMs: positiveInt.default(5000),
        positionsMs: positiveInt.default(5000),
      })
      .prefault({}),
    /** Reconciliation of the journal with the venue, as a cron expression in UTC (seconds field allowed); backtests follow it in virtual time. */
    reconcileCron: z.string().default('*/5 * * * * *'),
    shutdown: z
      .strictObject({
        cancelOpenOrders: z.boolean().default(false),
        /** With cancelOpenOrders: also cancel trigger (stop) orders. Kept by default: a stop protects a position while the bot is down. */
        cancelTriggers: z.boolean().default(false),
        timeoutMs: positiveInt.max(30_000).default(8000),
      })
      .prefault({}),
    /** Share of each usable weight budget the polls may take (the rest is for orders and reconciliation). */
    pollShare: z.number().gt(0).max(1).default(0.5),
    /** A strategy that throws this many times is faulted. */
    maxStrategyErrors: positiveInt.default(5),
    /** A strategy hook that runs longer than this is stopped and the strategy faulted; the daemon goes on. */
    hookTimeoutMs: positiveInt.max(60_000).default(1000),
    /** A faulted strategy starts again after this long; absent: it stays faulted until a restart. */
    restartFaultedAfterMs: positiveInt.optional(),
  })
  .prefault({});

export const backtestSchema = z
  .strictObject({
    /** Replayed market data (JSON lines: ts, symbol, price, size[, bid, ask, buyerMaker]). */
    data: z.string().min(1).default('data/sample/ticks.jsonl'),
    out: z.string().min(1).default('reports/backtest'),
    /**
     * Round trip between the bot and the venue, in virtual time: a request reaches the simulator half of it
     * after it is sent and its answer comes back the other half later. Polls run on daemon.polls periods.
     */
    latencyMs: z.number().int().min(0).max(60_000).default(50),
    /** Equity and price samples for the report; by default one per second, or fewer so a run has at most 5,000. */
    sampleMs: positiveInt.optional(),
  })
  .prefault({});

export const configSchema = z.strictObject({
  mode: z.enum(['live', 'dry-run', 'backtest']).default('live'),
  exchange: exchangeSchema,
  sim: simSchema,
  risk: riskSchema,
  journal: journalSchema,
  execution: executionSchema,
  daemon: daemonSchema,
  backtest: backtestSchema,
  strategyDirs: z.array(z.string().min(1)).default(['strategies']),
  strategies: z.array(strategySchema).default([]),
  log: z
    .strictObject({
      level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    })
    .prefault({}),
});

export type Config = z.infer<typeof configSchema>;
export type ExchangeConfig = Config['exchange'];
export type RateLimitConfig = ExchangeConfig['rateLimit'];
export type SimConfig = Config['sim'];
