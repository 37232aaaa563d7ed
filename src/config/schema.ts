// The configuration schema (zod, strict: unknown keys fail), every default and every key's description, in one
// place: docs/config.md is generated from it (`npm run docs:config`).
import { z } from 'zod';
import { TIMEFRAMES } from '../domain/candles.js';
import { VENUE_BUDGET } from '../domain/venue-budget.js';
import { Decimal } from '../domain/decimal.js';
import { DEFAULT_MAINTENANCE_TIERS } from '../domain/margin.js';
import { shadowSchema } from './shadow-schema.js';

const positiveInt = z.number().int().positive();

const windowBudget = (budget: number, windowMs: number, what: string) =>
  z
    .strictObject({
      budget: positiveInt.default(budget).describe('Weight (or requests) allowed in any interval of windowMs.'),
      windowMs: positiveInt.default(windowMs).describe('Length of the window, in ms.'),
    })
    .prefault({})
    .describe(what);

const surfaceBudget = (ip: number, uid: number, surface: string) =>
  z
    .strictObject({
      ip: windowBudget(ip, VENUE_BUDGET.windowMs, `Weight budget per IP address on ${surface}.`),
      uid: windowBudget(uid, VENUE_BUDGET.windowMs, `Weight budget per account (UID) on ${surface}: signed requests only.`),
    })
    .prefault({});

const httpUrl = z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' });

/** Plain decimal digits, as a decimal amount is written (quoted in YAML, or as a plain number read as written). */
export const DECIMAL_TEXT = /^\d+(\.\d+)?$/;

/**
 * A decimal amount: a quoted string ("0.001"), or a plain integer. The loader reads an unquoted fraction (0.001)
 * from the file's own text, never through a binary float (src/config/number-text.ts).
 */
export const decimalText = z
  .union(
    [
      z.string().regex(DECIMAL_TEXT, 'expected a non-negative decimal, e.g. "0.001"'),
      z
        .number()
        .int()
        .nonnegative()
        .transform((n) => String(n)),
    ],
    { error: 'expected a non-negative decimal, e.g. "0.001"' },
  )
  .meta({ decimal: true });

/** The venue's documented budget of a surface, as the descriptions quote it. */
const venueFigure = (surface: 'spot' | 'futures') => `${VENUE_BUDGET[surface].ip} weight per ${VENUE_BUDGET.windowMs / 1000} s per IP and per UID`;

export const rateLimitSchema = z
  .strictObject({
    spot: surfaceBudget(VENUE_BUDGET.spot.ip, VENUE_BUDGET.spot.uid, 'spot').describe(`Spot budgets (the venue: ${venueFigure('spot')}).`),
    futures: surfaceBudget(VENUE_BUDGET.futures.ip, VENUE_BUDGET.futures.uid, 'futures').describe(`Futures budgets (the venue: ${venueFigure('futures')}).`),
    orderRequests: windowBudget(
      VENUE_BUDGET.orderRequestsPerSecond,
      1000,
      `Place / cancel / trigger endpoints: the venue takes at most ${VENUE_BUDGET.orderRequestsPerSecond} requests per second.`,
    ),
    usableFraction: z
      .number()
      .gt(0)
      .max(1)
      .default(0.9)
      .describe('Share of each budget the limiter plans to use (headroom for latency jitter and other tools on the key).'),
    arrivalSpreadMs: z
      .number()
      .int()
      .min(0)
      .max(5000)
      .default(250)
      .describe(
        'How much the time from a request leaving this process to its arrival at the venue varies (ms). The venue counts arrivals: each pool is planned so that any window plus this much never starts more than the usable budget. It matters for the order endpoints (10 a second: 9 usable, 1 to spare), little for the 10 s weight windows.',
      ),
    cooloffMs: positiveInt.default(10_000).describe('After a 429, the whole surface pauses this long.'),
    egress: z
      .string()
      .regex(/^[A-Za-z0-9._:-]+$/)
      .max(200)
      .optional()
      .describe('What the IP pools are keyed by: processes sharing one egress address (and one Redis) share the IP budgets. Absent: the host name.'),
    processes: positiveInt
      .default(1)
      .describe(
        'How many processes share these budgets (behind one egress address, or on one account): the polling plan of each may use only its share, pollShare ÷ processes, of every usable budget. The limiter itself keeps the fleet within the budgets when they share Redis.',
      ),
    redis: z
      .strictObject({
        url: z.url({ protocol: /^rediss?$/, error: 'expected a redis:// URL' }).describe('redis:// or rediss:// URL of the shared datastore.'),
        keyPrefix: z
          .string()
          .regex(/^[A-Za-z0-9:_-]+$/)
          .default('sextant')
          .describe(
            'Prefix of the limiter keys: processes with the same prefix share the IP pools of their egress and the UID and order pools of their account.',
          ),
      })
      .optional()
      .describe('Several processes share the budget through Redis; absent: this process alone.'),
  })
  .prefault({})
  .describe("Client-side rate limiting: every request, reads included, is charged its endpoint's IP and UID weights.");

const maintenanceTier = z.strictObject({
  upToContracts: positiveInt.nullable().describe('Positions up to this many contracts (null: no upper bound).'),
  rate: decimalText.describe('Maintenance margin rate of the tier (0.025 = 2.5 %).'),
  maxLeverage: positiveInt.describe("The venue's highest leverage for the tier (shown, not enforced)."),
});

export const futuresMarginSchema = z
  .strictObject({
    maintenanceTiers: z
      .array(maintenanceTier)
      .min(1)
      .default(DEFAULT_MAINTENANCE_TIERS.map((t) => ({ upToContracts: t.upToContracts, rate: t.rate.toString(), maxLeverage: t.maxLeverage })))
      .describe(
        "Maintenance margin rate by position size, in contracts, smallest first (default: the venue's published example tiers; no v2 endpoint serves them).",
      ),
    liquidationTrigger: z
      .enum(['maintenance', 'maintenance-plus-fee'])
      .default('maintenance')
      .describe(
        "Liquidation when equity (collateral + unrealised PnL at mark) is at or below the maintenance margin (the venue's liquidation-price formula) or maintenance plus the closing fee (its cross-margin process page). The sources disagree.",
      ),
  })
  .prefault({})
  .describe('How the venue margins futures (cross): the simulator liquidates by it and the risk gate measures the distance to liquidation by it.');

export const exchangeSchema = z
  .strictObject({
    spotBaseUrl: httpUrl
      .default('https://api-spot.weex.com')
      .describe('Spot REST base URL (/api/v2); SEXTANT_SPOT_BASE_URL overrides it. Not used with sim.embedded.'),
    futuresBaseUrl: httpUrl
      .default('https://api-contract.weex.com')
      .describe('Futures REST base URL (/capi/v2); SEXTANT_FUTURES_BASE_URL overrides it. Not used with sim.embedded.'),
    locale: z
      .string()
      .regex(/^[a-z]{2}-[A-Z]{2}$/, 'expected a locale like en-US')
      .default('en-US')
      .describe("Sent in the `locale` header of every request (the language of the venue's messages)."),
    timeoutMs: positiveInt.max(120_000).default(10_000).describe('Timeout of one HTTP request, in ms.'),
    retry: z
      .strictObject({
        attempts: positiveInt.max(10).default(3).describe('Tries in all of a read that fails with a retryable error.'),
        baseDelayMs: positiveInt
          .default(250)
          .describe('Backoff before the second try, in ms; it doubles each try up to maxDelayMs (jittered: from half of it to all of it).'),
        maxDelayMs: positiveInt.default(5_000).describe('Longest backoff delay, in ms.'),
      })
      .prefault({})
      .describe('Retries of reads (network, timeout, 429, 5xx). Writes are never retried blindly.'),
    maxPages: positiveInt.max(1000).default(20).describe('Most pages one paged read walks (open orders, order history).'),
    spotOpenOrders: z
      .enum(['S15', 'S1'])
      .default('S15')
      .describe("How spot open orders are read: S15 (the venue's current-orders endpoint) or S1 (order history pages)."),
    futuresTickers: z
      .enum(['auto', 'F2', 'F12'])
      .default('auto')
      .describe(
        'How futures tickers are polled: F2 (every contract in one request, weight 40), F12 (one request per traded contract, weight 1 each) or auto (F12 while the traded contracts weigh less than one F2). `sextant plan` shows the choice and its cost.',
      ),
    spotTickers: z
      .enum(['depth', 'trade'])
      .default('depth')
      .describe(
        "How spot tickers are polled: depth (S11 for the last price and 24 h figures, S13 for the best bid and ask: the spot ticker has none) or trade (the pair's last public trade, S9: no bid or ask).",
      ),
    margin: futuresMarginSchema,
    fundingFeeSign: z
      .enum(['collateral-change', 'paid-positive'])
      .default('collateral-change')
      .describe(
        'How the venue signs funding in positions (`funding_fee`, `cum_funding_fee`) and collateral (`cum_position_funding_amount`): as a change of collateral (received positive, paid negative, as its bills read) or as an amount paid (paid positive). Its docs do not say; the simulator answers the way chosen here.',
      ),
    authFailuresBeforeHalt: positiveInt
      .max(100)
      .default(3)
      .describe(
        "The venue's refusals of the keys in a row (its authentication and permission codes, and 521) before signed requests stop: the venue disables keys after frequent invalid requests. A success clears the count; a 403 without the venue's code (a proxy's page) does not count. `sextant clear-auth-halt` lets them go again once the keys are fixed.",
      ),
    rateLimit: rateLimitSchema,
  })
  .prefault({})
  .describe('The venue: base URLs, timeouts, retries, rate limits. Keys come from the environment only.');

const instrumentSpec = z.strictObject({
  surface: z.enum(['spot', 'futures']).describe('Spot pair or USDT-margined futures contract.'),
  symbol: z
    .string()
    .regex(/^([A-Z0-9]+_SPBL|cmt_[a-z0-9]+)$/, 'expected BASEQUOTE_SPBL (spot) or cmt_basequote (futures)')
    .describe('Venue symbol: BASEQUOTE_SPBL (spot) or cmt_basequote (futures).'),
  base: z.string().min(1).describe('Base currency, e.g. BTC.'),
  quote: z.string().min(1).describe('Quote currency, e.g. USDT.'),
  priceDecimals: z.number().int().min(0).max(12).describe('Decimal places of prices.'),
  sizeDecimals: z.number().int().min(0).max(12).describe('Decimal places of sizes (the size step is 10^-sizeDecimals).'),
  priceEndStep: z.number().int().min(1).max(9).default(1).describe('The last price digit moves in steps of this (tick = priceEndStep × 10^-priceDecimals).'),
  minSize: decimalText.describe('Smallest order size.'),
  maxSize: decimalText.describe('Largest order size.'),
  makerFeeRate: decimalText.describe('Maker fee rate (0.001 = 0.1 %).'),
  takerFeeRate: decimalText.describe('Taker fee rate.'),
  limitPriceRatio: decimalText.default('0.05').describe('Allowed distance of a limit price from the market (0.05 = 5 %).'),
  contractValue: decimalText.optional().describe('Futures: base currency per contract.'),
  maxPositionSize: decimalText.optional().describe('Futures: largest position.'),
  maxLeverage: z.number().int().min(1).max(500).optional().describe('Futures: highest leverage.'),
  startPrice: decimalText.describe('Start price of the synthetic market.'),
  volBps: z.number().int().min(1).max(1000).default(3).describe('Volatility of the synthetic market per tick, in basis points.'),
  fundingIntervalMinutes: positiveInt.default(480).describe("Futures: minutes between funding settlements (the venue's `collectCycle`; pairs differ)."),
  fundingOffsetMinutes: z
    .number()
    .int()
    .min(0)
    .default(0)
    .describe('Futures: settlements fall at this many minutes past each multiple of the interval from 00:00 UTC.'),
});

export const simFuturesSchema = z
  .strictObject({
    markBasisBps: z
      .number()
      .int()
      .min(0)
      .max(500)
      .default(0)
      .describe(
        'Mark = index + a basis bounded by this many basis points, drawn from the seed and slowly varying (0: mark = index). The index is the synthetic or replayed price; a replay with mark/index columns uses them as given.',
      ),
    liquidationFeeRate: decimalText.optional().describe("Fee on a liquidation close, of its value; default the contract's taker rate."),
  })
  .prefault({})
  .describe('Futures in the simulator: the mark price model and the liquidation fee (margin rules: exchange.margin).');

export const simSchema = z
  .strictObject({
    embedded: z
      .boolean()
      .default(false)
      .describe('`sextant run` starts the simulator on loopback and trades against it (the base URLs are not used); `plan`, `api` and `record` use it too.'),
    seed: z.number().int().min(0).max(0xffffffff).default(42).describe('Seed of the synthetic market: the same seed gives the same market.'),
    host: z.string().min(1).default('127.0.0.1').describe('Address `sextant sim` binds (the embedded simulator is always on loopback).'),
    port: z.number().int().min(0).max(65535).default(8787).describe('Port of the simulator; 0 picks a free one.'),
    tickIntervalMs: positiveInt.default(250).describe('One market tick per symbol every tickIntervalMs.'),
    retainOrders: positiveInt.default(10_000).describe('Final orders and fills the simulator keeps per symbol for history reads (bounds its memory).'),
    fills: z
      .enum(['queue', 'touch', 'through'])
      .default('queue')
      .describe(
        "How a resting (maker) order fills, in backtests, dry-run's paper venue and `sextant sim` (docs/fills.md works an example of each). `queue` (the default: the one a real book gives, as hftbacktest models it): the order joins the back of the size its price level displays and fills there only once trades at that price have used up what was ahead of it. `touch`: a trade at its price fills it at once (it assumes it was first in line: the most generous). `through`: only a trade or quote past its price fills it (the most conservative). A trade or quote through its price fills it under every model.",
      ),
    replayFile: z
      .string()
      .min(1)
      .optional()
      .describe(
        "Replay a data file (ticks or candles, as `record`, `data synth`, `data import` and `data download` write them) instead of the synthetic market; relative to the config file's folder.",
      ),
    accounts: z
      .strictObject({
        spot: z
          .record(z.string().regex(/^[A-Z0-9]+$/), decimalText)
          .default({ USDT: '100000', BTC: '1', ETH: '20', SOL: '500' })
          .describe('Starting spot balances by asset (also the paper balances of dry-run).'),
        futuresCollateral: decimalText.default('100000').describe('Starting futures collateral, in USDT.'),
        leverage: z.number().int().min(1).max(125).default(20).describe('Futures leverage.'),
      })
      .prefault({})
      .describe('Starting balances of the simulated account.'),
    futures: simFuturesSchema,
    instruments: z
      .array(instrumentSpec)
      .min(1)
      .optional()
      .describe("The simulator's instruments; replaces the built-in ones (BTC, ETH, SOL spot and futures) when given."),
    budget: z
      .strictObject({
        spot: z
          .strictObject({
            ip: positiveInt.default(VENUE_BUDGET.spot.ip).describe('Spot weight per IP per window.'),
            uid: positiveInt.default(VENUE_BUDGET.spot.uid).describe('Spot weight per UID per window.'),
          })
          .prefault({})
          .describe('Spot weight budgets the simulator enforces.'),
        futures: z
          .strictObject({
            ip: positiveInt.default(VENUE_BUDGET.futures.ip).describe('Futures weight per IP per window.'),
            uid: positiveInt.default(VENUE_BUDGET.futures.uid).describe('Futures weight per UID per window.'),
          })
          .prefault({})
          .describe('Futures weight budgets the simulator enforces.'),
        windowMs: positiveInt.default(VENUE_BUDGET.windowMs).describe('Window of the weight budgets, in ms.'),
        orderRequestsPerSecond: positiveInt.default(VENUE_BUDGET.orderRequestsPerSecond).describe('Order-endpoint requests per second before a 429.'),
      })
      .prefault({})
      .describe('Budgets the simulator answers with 429 beyond, as the venue does.'),
  })
  .prefault({})
  .describe("The simulated exchange: `sextant sim`, the embedded simulator, backtests and dry-run's paper venue.");

export const riskSchema = z
  .strictObject({
    maxNotionalPerOrder: decimalText.default('10000').describe('Largest notional of one order (a market order at the reference price), in the quote currency.'),
    maxNotionalPerSymbol: decimalText
      .default('50000')
      .describe('Largest notional of open orders per symbol, new ones included (orders that reduce exposure do not count).'),
    maxOpenOrdersPerSymbol: positiveInt.default(50).describe("Most open orders per symbol (the journal's and what the venue listed)."),
    maxOpenOrdersPerStrategy: positiveInt.default(100).describe('Most open orders per strategy instance.'),
    priceBandPct: decimalText.default('2').describe("Percent around the reference price; the instrument's own limit ratio applies when tighter."),
    staleAfterMs: positiveInt
      .default(10_000)
      .describe("A reference price older than this (by its poll, or by the ticker's own timestamp not moving) prices no order: new orders wait."),
    maxOrdersPerMinute: positiveInt
      .default(300)
      .describe(
        'Orders that reached the venue in any minute before the breaker latches halted. The shipped config peaks at about 105 a minute (measured: `npm run reliability -- rate`); the default leaves ~3× headroom while a runaway strategy (the venue takes 10 order requests a second, up to 20 orders each) is stopped within a minute.',
      ),
    maxDrawdownPct: decimalText
      .default('10')
      .describe('Drawdown of equity from its peak, in percent, that latches the kill switch (halted until `sextant risk reset`).'),
    reduceDrawdownPct: decimalText
      .optional()
      .describe(
        'Drawdown of equity from its peak, in percent, that latches reducing: only orders that shrink exposure until `sextant risk reset`. Below maxDrawdownPct; absent: no reducing stage.',
      ),
    maxOrdersPerIntent: positiveInt
      .default(50)
      .describe('Orders one place intent may carry; a larger intent is refused whole (a runaway strategy stalls nothing).'),
    minLiquidationDistancePct: decimalText
      .optional()
      .describe(
        "Orders that add to a futures position are refused while the mark is closer than this percent to the position's liquidation price (the venue's estimate, F29; else worked out from collateral and the maintenance tiers). Absent: no such rule.",
      ),
    reduceLiquidationDistancePct: decimalText
      .optional()
      .describe(
        "Latches reducing (only orders that shrink exposure until `sextant risk reset`) when a futures position's mark comes closer than this percent to its liquidation price. Absent: no such latch.",
      ),
    onKill: z
      .enum(['cancel', 'flatten'])
      .default('cancel')
      .describe(
        'What the kill switch does when it latches: cancel every open order (cancel), or also close every futures position at market (flatten: F28 for orders and trigger orders, then F27), journaled.',
      ),
    outlierPct: decimalText
      .default('20')
      .describe(
        "A price that moves more than this percent from the previous accepted one, or lies outside the ticker's own bid/ask, is an outlier: it is not used for equity (nor the drawdown kill switch) until a second reading confirms it.",
      ),
  })
  .superRefine((risk, ctx) => {
    if (risk.reduceDrawdownPct !== undefined && Decimal.from(risk.reduceDrawdownPct).gte(Decimal.from(risk.maxDrawdownPct))) {
      ctx.addIssue({
        code: 'custom',
        path: ['reduceDrawdownPct'],
        message: `reduceDrawdownPct (${risk.reduceDrawdownPct}) must be below maxDrawdownPct (${risk.maxDrawdownPct}): reducing comes before the kill switch halts`,
      });
    }
  })
  .prefault({})
  .describe('The risk gate every intent passes before anything is sent.');

/** The SQLite journal's file when neither journal.path nor journal.url is set. */
export const DEFAULT_JOURNAL_PATH = 'data/journal.sqlite';

export const journalSchema = z
  .strictObject({
    path: z
      .string()
      .min(1)
      .optional()
      .describe(
        `SQLite file of the journal (":memory:" keeps it in memory), relative to the config file's folder; absent: ${DEFAULT_JOURNAL_PATH} in the user folder (the working directory), unless journal.url is set. The venue's instrument list is cached beside it (\`<path>.instruments.json\`).`,
      ),
    url: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'expected a postgres:// URL')
      .optional()
      .describe(
        'PostgreSQL database of the journal instead of a SQLite file (`postgres://user@host:5432/db`): for fleets, several daemons and operators on one database. Not with journal.path. The password is best left out of the file: the driver takes PGPASSWORD or a pgpass file (PGPASSFILE); one written in the URL is redacted wherever the URL is shown.',
      ),
    clientOidPrefix: z
      .string()
      .regex(/^[A-Za-z0-9]{1,8}$/, 'expected 1-8 characters of [A-Za-z0-9]')
      .default('sx')
      .describe('Prefix of every client id (tells instances sharing one API key apart).'),
    lockWaitMs: z
      .number()
      .int()
      .min(0)
      .default(60_000)
      .describe(
        'How long opening a SQLite journal that must be written to (its schema brought up to date, its first binding) waits while another process holds its write lock (a daemon stopped in the middle of a write): it logs that it waits, asks again every 200 ms, and gives up after this long with an error naming the file. 0: it does not wait. (A daemon holding the account lease waits for the fence apart from this.)',
      ),
  })
  .superRefine((journal, ctx) => {
    if (journal.path !== undefined && journal.url !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['url'],
        message: 'journal.path and journal.url are both set: the journal is a SQLite file (path) or a PostgreSQL database (url), not both',
      });
    }
  })
  .transform((journal) => ({ ...journal, path: journal.url === undefined ? (journal.path ?? DEFAULT_JOURNAL_PATH) : undefined }))
  .prefault({})
  .describe('The journal: intents, requests, orders, fills and state, written before anything is sent.');

export const executionSchema = z
  .strictObject({
    graceMs: positiveInt.default(10_000).describe('An order with no answer is not looked for as missing before this.'),
    lostAfterChecks: positiveInt.default(3).describe('Lookups without it, after the grace window, before an order is marked lost.'),
    notPlacedAfterChecks: positiveInt.default(10).describe('Further lookups without a lost order before it is final (`not-placed`): it stops being checked.'),
    vanishAfterMs: positiveInt
      .default(120_000)
      .describe(
        'An order the journal holds as open (or being canceled) that the venue has not known for this long and for vanishAfterChecks lookups becomes final (`vanished`), with the evidence in its history.',
      ),
    vanishAfterChecks: positiveInt.default(5).describe('Lookups that missed an open order, at least, before it may be `vanished`.'),
    stops: z
      .strictObject({
        maxModifiesPerMinute: positiveInt.default(6).describe('Most moves (F24) of one managed stop in any minute: a trailing stop waits beyond it.'),
        triggerPriceType: z.enum(['last', 'mark']).default('last').describe('What managed stops trigger on when moved (F24 `triggerPriceType`).'),
      })
      .prefault({})
      .describe('Managed stops (stop-loss, take-profit, trailing) on futures positions.'),
  })
  .prefault({})
  .describe('How the order tracker settles orders whose outcome is unknown.');

export const strategySchema = z.strictObject({
  id: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,24}$/, 'expected 1-24 characters of [A-Za-z0-9_-]')
    .describe('Instance id, unique: tags its client ids, logs and metrics.'),
  name: z
    .string()
    .regex(/^[A-Za-z0-9._-]+$/)
    .describe('Strategy module, looked up in strategyDirs (`<name>.ts` or `<name>/index.ts`, .mts, .js, .mjs).'),
  symbols: z.array(z.string().min(1)).min(1).describe("Symbols it trades; checked against the venue's (or the simulator's) instruments."),
  params: z
    .record(z.string(), z.unknown())
    .default({})
    .describe("Checked by the strategy's own schema; a plain number where it expects a decimal string is read as written."),
  schedule: z.record(z.string(), z.string()).default({}).describe('Scheduled hooks: onSchedule hook name -> cron expression, UTC (seconds field allowed).'),
  timeframes: z
    .array(z.enum(TIMEFRAMES))
    .min(1)
    .optional()
    .describe("Bar timeframes its onBar hook gets for each of its symbols (1m … 1w); absent: the strategy's own default, if any."),
});

export const daemonSchema = z
  .strictObject({
    http: z
      .strictObject({
        host: z.string().min(1).default('127.0.0.1').describe('Address of /health, /ready, /metrics, the control API (/api/v1) and the dashboard.'),
        port: z.number().int().min(0).max(65535).default(9464).describe('Port of the ops server; 0 picks a free one.'),
        tokenEnv: z
          .string()
          .regex(/^[A-Z0-9_]+$/)
          .default('SEXTANT_HTTP_TOKEN')
          .describe(
            "Environment variable holding the token (or `<VARIABLE>_FILE`, a file holding it; 16 characters at least). Unset: a token is generated at every start and written to tokenFile. Required when bound beyond loopback. The credential (`Authorization: Bearer <token>`, or the dashboard's cookie from its sign-in link) is needed for the control API, its event stream and /metrics, on loopback too; bound beyond loopback, for every path.",
          ),
        tokenFile: z
          .string()
          .min(1)
          .optional()
          .describe(
            "Where a generated token is written (mode 0600) for the commands that talk to the daemon (`sextant status`, `halt`, `dashboard` …), relative to the config file's folder; absent: beside the SQLite journal, `<journal dir>/http-<port>.token` (`data/http-<port>.token` in the user folder for a PostgreSQL or in-memory journal).",
          ),
        allowedHosts: z
          .array(
            z
              .string()
              .regex(/^(\*\.)?[A-Za-z0-9.\-_]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/, 'expected a host name, `name:port`, `[v6]:port` or `*.domain`'),
          )
          .default([])
          .describe(
            "Host names served besides the bound address, localhost, 127.0.0.1 and [::1] (and, bound to 0.0.0.0 or ::, the machine's addresses): a reverse proxy's or a Docker service's name. Any other Host header is refused (421): a web page whose name points at 127.0.0.1 (DNS rebinding) cannot reach the daemon.",
          ),
        allowedOrigins: z
          .array(z.url({ protocol: /^https?$/, error: 'expected an origin, e.g. https://bot.example.com' }))
          .default([])
          .describe(
            "Origins besides the daemon's own (`http://<Host>`) whose pages may change state (a reverse proxy serving the dashboard over https: `https://bot.example.com`). A POST whose Origin or Referer is another is refused (403), token or not.",
          ),
        commands: z
          .boolean()
          .default(true)
          .describe(
            'The control API takes commands (pause, resume, cancel-orders, force-exit, halt, reduce, reset, flatten, reload, clear-auth-halt); false: they answer 403, reads stay.',
          ),
        dashboard: z.boolean().default(true).describe('Serve the dashboard page at / (it reads and steers through the control API).'),
      })
      .prefault({})
      .describe('The ops server: health, metrics, the control API and the dashboard.'),
    polls: z
      .strictObject({
        tickersMs: positiveInt.default(1000).describe('Tickers (F2 or F12; S11 and S13, or S9) every this many ms.'),
        ordersMs: positiveInt.default(2000).describe('Open orders (F5, S15 or S1) every this many ms.'),
        balancesMs: positiveInt.default(5000).describe('Balances (S8, F3) every this many ms.'),
        positionsMs: positiveInt.default(5000).describe('Futures positions (F4) every this many ms.'),
        tradesMs: positiveInt
          .default(1000)
          .describe('Public trades (S9) of the spot pairs whose bars are built, or of every spot pair when a shadow runs, every this many ms.'),
        ledgerMs: positiveInt
          .default(300_000)
          .describe(
            "The futures ledger's funding entries (F30) every this many ms, each settlement recorded once in the journal (only when futures are traded).",
          ),
      })
      .prefault({})
      .describe('Polling periods; the plan must fit pollShare of the weight budgets (`sextant config check` says which poll to slow).'),
    bars: z
      .strictObject({
        closeDelayMs: positiveInt
          .max(600_000)
          .default(3000)
          .describe(
            'A bar with no later trade is closed this long after its end (its last trades may still be on their way: make it longer than the tickers and trades periods).',
          ),
        warmup: z
          .boolean()
          .default(true)
          .describe("Fill each strategy's bar history from the venue's candles at start (S10 spot, F10/F11 futures); backtests start from their data."),
      })
      .prefault({})
      .describe('Bars for strategies that declare timeframes: built from the public trade tape (spot) and the tickers (futures).'),
    reconcileCron: z
      .string()
      .default('*/5 * * * * *')
      .describe('Reconciliation of the journal with the venue, as a cron expression in UTC (seconds field allowed); backtests follow it in virtual time.'),
    shutdown: z
      .strictObject({
        cancelOpenOrders: z.boolean().default(false).describe("Cancel this bot's open orders on SIGTERM / SIGINT."),
        cancelTriggers: z
          .boolean()
          .default(false)
          .describe('With cancelOpenOrders: also cancel trigger (stop) orders. Kept by default: a stop protects a position while the bot is down.'),
        timeoutMs: positiveInt
          .max(30_000)
          .default(8000)
          .describe('Time budget of a stop: the writes in flight drain within it, less 1.5 s kept for cancels and closing.'),
      })
      .prefault({})
      .describe('What a stop does.'),
    lease: z
      .strictObject({
        store: z
          .string()
          .min(1)
          .describe(
            "Where the lease is kept: a Redis URL (`redis://host:6379`, `redis://:password@host:6379/0`), or `journal` for the PostgreSQL journal's database (journal.url).",
          ),
        ttlMs: positiveInt
          .min(1000)
          .max(300_000)
          .default(10_000)
          .describe(
            "The lease's time to live: a holder that stops renewing loses it after this long (by the store's clock) and a standby takes over. Renewed every third of it; the holder stops trading on its own when a renewal has not succeeded within 0.8 of it.",
          ),
        keyPrefix: z.string().min(1).default('sextant:lease').describe("Prefix of the lease's keys in Redis (the account's digest follows it)."),
        holder: z
          .string()
          .min(1)
          .max(200)
          .optional()
          .describe(
            "This daemon's name in the lease, shown to the standby (its process id and a random suffix are added: two daemons given one name never pass for one holder); absent: the host name.",
          ),
      })
      .optional()
      .describe(
        "One writer per account: the daemon trades only while it holds the account's lease, and its journal writes carry the lease's fencing token (a daemon whose lease lapsed cannot write once a newer holder has). A second daemon on the same account waits as a hot standby (/ready answers 503 naming the holder) and takes over when the lease lapses, after reconciling. Absent: no lease (one daemon per account is up to you).",
      ),
    pollShare: z
      .number()
      .gt(0)
      .max(1)
      .default(0.5)
      .describe('Share of each usable weight budget the polls may take (the rest is for orders and reconciliation).'),
    maxStrategyErrors: positiveInt.default(5).describe('A strategy that throws this many times is faulted.'),
    hookTimeoutMs: positiveInt
      .max(60_000)
      .default(1000)
      .describe(
        'A strategy hook that runs longer than this is stopped (up to two tenths of it later: 10 ms to 200 ms) and the strategy faulted; the daemon goes on.',
      ),
    restartFaultedAfterMs: positiveInt.optional().describe('A faulted strategy starts again after this long; absent: it stays faulted until a restart.'),
  })
  .prefault({})
  .describe('The daemon: ops endpoints, polls, schedules, shutdown, strategy isolation.');

export const backtestSchema = z
  .strictObject({
    data: z
      .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
      .default('data/sample/ticks.jsonl')
      .describe(
        "Replayed market data: a data file of ticks or candles (JSON lines, a header line saying which), or a list of them replayed as one, in time order (records of one instant: the earlier file's first). Relative to the config file's folder; by default the sample in the user folder (the working directory).",
      ),
    cache: z
      .string()
      .min(1)
      .default('auto')
      .describe(
        "Where each data file's binary cache is kept (its records as integer columns in time order, built at the first run and rebuilt when the file or the instruments' tick and step sizes change; a backtest then loads in a moment and replays in little memory): `auto`, a `.sextant-cache` folder beside the data file; `off`, none (the file is read as text at every run); or a folder, relative to the config file's folder. A cache that cannot be written is skipped with a warning.",
      ),
    out: z
      .string()
      .min(1)
      .default('reports/backtest')
      .describe("Folder of the report files, relative to the config file's folder; by default reports/backtest in the user folder (the working directory)."),
    latencyMs: z
      .number()
      .int()
      .min(0)
      .max(60_000)
      .default(50)
      .describe(
        'Round trip between the bot and the venue, in virtual time: a request reaches the simulator half of it after it is sent and its answer comes back the other half later. Polls run on daemon.polls periods.',
      ),
    sampleMs: positiveInt.optional().describe('Equity and price samples for the report; by default one per second, or fewer so a run has at most 5,000.'),
    staleness: z
      .enum(['data-cadence', 'risk'])
      .default('data-cadence')
      .describe(
        "How old a reference price may be before it prices no order, in a backtest. `data-cadence`: a symbol replayed from candles is judged against the data's own cadence, its price moving every quarter of a candle (the limit is risk.staleAfterMs, or a quarter candle plus daemon.polls.tickersMs and the latency when that is longer: 1m candles 15 s plus, 1h candles 15 min plus); ticks are judged as live. `risk`: risk.staleAfterMs for every symbol, as live. report.json's `staleness` and the summary say which limits applied.",
      ),
    funding: z
      .array(z.string().min(1))
      .default([])
      .describe(
        "Funding files (`sextant data download --kind funding`), relative to the config file's folder: the settled rates the simulator charges its futures contracts instead of its own seeded ones, at the recorded settlement times.",
      ),
  })
  .prefault({})
  .describe('`sextant backtest`: replayed data against the in-process simulator, in virtual time.');

/** What a notification channel may be sent (its `events`); the daily summary has its own section (notify.daily). */
export const NOTIFY_EVENTS = ['fill', 'rejection', 'kill-switch', 'strategy-fault', 'strategy', 'reconciliation', 'unknown-order', 'command'] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

const envVarName = z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'expected an environment variable name, e.g. SEXTANT_WEBHOOK_SECRET');
const channelName = z.string().regex(/^[A-Za-z0-9_-]{1,32}$/, 'expected 1-32 characters of [A-Za-z0-9_-]');

/** The keys every notification channel has: what it is sent, and how much. */
const channelKeys = {
  events: z
    .array(z.enum(NOTIFY_EVENTS))
    .min(1)
    .default(['fill', 'rejection', 'kill-switch', 'strategy-fault', 'reconciliation', 'unknown-order'])
    .describe(
      "What the channel is sent: fill, rejection (the venue's and the risk gate's refusals), kill-switch (trading state tripped or reset), strategy-fault, strategy (paused, resumed, reloaded), reconciliation (an order settled by it), unknown-order (an outcome unknown or lost), command (an operator's command).",
    ),
  maxPerMinute: positiveInt
    .max(600)
    .default(20)
    .describe('Messages a minute at most; the rest are counted and said as "N more" when the minute ends. Kill-switch messages always go out.'),
  queueSize: positiveInt
    .max(10_000)
    .default(500)
    .describe('Messages waiting for a slow or dead receiver, at most; beyond it the oldest are dropped (counted, and said once it answers again).'),
  burst: z
    .strictObject({
      windowMs: positiveInt.max(3_600_000).default(10_000).describe('Length of a burst window, in ms.'),
      max: positiveInt
        .default(3)
        .describe('Fills (and, apart, rejections) sent one by one in a window; the rest of the window comes as one summary at its end.'),
    })
    .prefault({})
    .describe('Bursts of fills and of rejections are summarised.'),
};

export const notifySchema = z
  .strictObject({
    webhooks: z
      .array(
        z.strictObject({
          name: channelName.optional().describe("The channel's name (logs, notify.daily.channels); default webhook-<index>."),
          url: httpUrl.describe(
            'Receiver: a JSON POST with `X-Sextant-Signature: sha256=<hex HMAC-SHA256 of the body>` and `X-Sextant-Timestamp` (also in the signed body).',
          ),
          secretEnv: envVarName.describe('Environment variable (or <name>_FILE) holding the shared HMAC secret; never in YAML.'),
          ...channelKeys,
        }),
      )
      .default([])
      .describe('Generic webhooks.'),
    discord: z
      .array(
        z.strictObject({
          name: channelName.optional().describe("The channel's name (logs, notify.daily.channels); default discord-<index>."),
          urlEnv: envVarName.describe("Environment variable (or <name>_FILE) holding the Discord webhook URL (it carries the webhook's token); never in YAML."),
          ...channelKeys,
        }),
      )
      .default([])
      .describe('Discord webhooks: `{content}` posts.'),
    telegram: z
      .strictObject({
        tokenEnv: envVarName.default('SEXTANT_TELEGRAM_TOKEN').describe('Environment variable (or <name>_FILE) holding the bot token; never in YAML.'),
        apiRoot: httpUrl
          .refine((u) => !u.endsWith('/'), 'no trailing slash')
          .default('https://api.telegram.org')
          .describe('Root of the Bot API (a local Bot API server, or a fake in tests).'),
        chatIds: z
          .array(
            z.union([
              z.string().regex(/^-?\d{1,20}$/, 'expected a chat id, e.g. "-1001234567890"'),
              z
                .number()
                .int()
                .transform((n) => String(n)),
            ]),
          )
          .min(1)
          .describe('Chats the bot writes to and takes commands from; every other chat is ignored (and logged, once per chat an hour).'),
        commands: z
          .boolean()
          .default(true)
          .describe(
            'Take chat commands from the allowed chats, by long polling: reads (/status /balance /positions /orders /profit /performance /daily) and /resume ID at once; /pause ID, /forceexit ID SYMBOL, /halt and /flatten only after a confirmation within 30 s (/confirm CODE or its button). More than 10 commands a minute from one chat are ignored (the chat is told once).',
          ),
        ...channelKeys,
      })
      .optional()
      .describe('A Telegram bot: notifications to the allowed chats, commands from them.'),
    daily: z
      .strictObject({
        at: z
          .string()
          .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'expected HH:MM, e.g. "07:30"')
          .describe('Time of day, UTC.'),
        channels: z.array(channelName).min(1).optional().describe('Channels (by name; telegram is `telegram`) sent it; absent: every channel.'),
      })
      .optional()
      .describe('A daily summary (equity, PnL and fees per strategy, fills); absent: none.'),
    retry: z
      .strictObject({
        attempts: positiveInt.max(20).default(5).describe('Tries of one message in all; then it is dropped with a log line.'),
        baseDelayMs: z
          .number()
          .int()
          .min(100)
          .default(1000)
          .describe("Backoff before the second try, in ms; it doubles each try up to maxDelayMs. A receiver's longer Retry-After is waited instead."),
        maxDelayMs: z.number().int().min(100).default(60_000).describe('Longest backoff, in ms.'),
        timeoutMs: positiveInt.max(120_000).default(10_000).describe('Timeout of one request, in ms.'),
      })
      .prefault({})
      .describe('Sending a message that fails (network, 429, 5xx).'),
  })
  .superRefine((notify, ctx) => {
    const names = notifyChannelNames(notify);
    const seen = new Set<string>();
    names.forEach((name, i) => {
      if (seen.has(name)) ctx.addIssue({ code: 'custom', path: [], message: `two channels are named "${name}" (channel ${i + 1})` });
      seen.add(name);
    });
    notify.daily?.channels?.forEach((name, i) => {
      if (!seen.has(name))
        ctx.addIssue({ code: 'custom', path: ['daily', 'channels', i], message: `no channel is named "${name}" (channels: ${names.join(', ') || 'none'})` });
    });
  })
  .optional()
  .describe(
    'Notifications (webhooks, Discord, Telegram) and chat commands; absent: none. They never hold up trading: a slow receiver only fills its own queue.',
  );

/** The names of the configured channels, in order: webhooks, Discord, Telegram (`telegram`). */
export function notifyChannelNames(notify: {
  webhooks: Array<{ name?: string | undefined }>;
  discord: Array<{ name?: string | undefined }>;
  telegram?: unknown;
}): string[] {
  return [
    ...notify.webhooks.map((w, i) => w.name ?? `webhook-${i}`),
    ...notify.discord.map((d, i) => d.name ?? `discord-${i}`),
    ...(notify.telegram ? ['telegram'] : []),
  ];
}

/** The notify section as loaded (when present). */
export type NotifyConfig = NonNullable<z.infer<typeof notifySchema>>;

export const configSchema = z.strictObject({
  mode: z
    .enum(['live', 'dry-run', 'backtest'])
    .default('live')
    .describe('live: orders go to the venue (or the embedded simulator); dry-run: live market data, simulated fills; backtest: replayed data.'),
  exchange: exchangeSchema,
  sim: simSchema,
  risk: riskSchema,
  journal: journalSchema,
  execution: executionSchema,
  daemon: daemonSchema,
  backtest: backtestSchema,
  shadow: shadowSchema,
  notify: notifySchema,
  strategyDirs: z
    .array(z.string().min(1))
    .default(['strategies'])
    .describe(
      "Folders strategies are looked up in, in order, relative to the config file's folder; by default strategies in the user folder (the working directory).",
    ),
  strategies: z
    .array(strategySchema)
    .default([])
    .superRefine((list, ctx) => {
      const first = new Map<string, number>();
      list.forEach((s, i) => {
        const j = first.get(s.id);
        if (j === undefined) first.set(s.id, i);
        else
          ctx.addIssue({
            code: 'custom',
            path: [i, 'id'],
            message: `duplicate strategy id "${s.id}": strategies[${j}] has it too (an id tags client ids, logs and metrics)`,
          });
      });
    })
    .describe('Strategy instances.'),
  log: z
    .strictObject({
      level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info').describe('Least severe level logged (JSON lines).'),
    })
    .prefault({})
    .describe('Logging.'),
});

export type Config = z.infer<typeof configSchema>;
export type ExchangeConfig = Config['exchange'];
export type RateLimitConfig = ExchangeConfig['rateLimit'];
export type SimConfig = Config['sim'];
