// The control API's request and response shapes as zod schemas: the handlers check requests with them, and the
// OpenAPI document is generated from them (openapi.ts). The response shapes are those of src/ops/control.ts; the
// compile-time checks at the end keep the two the same.
import { z } from 'zod';
import { scrubSecrets } from '../../util/secrets.js';
import type { CommandResult, ControlEvent, ControlStatus, FillView, OrderView, ProfitWindow, StrategyView, SymbolPerformance } from '../control.js';
import type { DivergenceReport } from '../../report/divergence.js';

/** An exact decimal, as a plain string (never a JSON number). */
const decimal = z.string().describe('exact decimal');
const ms = z.number().int().describe('milliseconds since the epoch');

export const errorSchema = z.object({ error: z.string() }).describe('What was wrong: a field named, an unknown strategy, a missing token.');

export const statusSchema = z.object({
  version: z.string().describe('The version of sextant running.'),
  mode: z.enum(['live', 'dry-run', 'backtest']),
  venue: z.string(),
  startedAtMs: ms,
  nowMs: ms,
  tradingState: z.enum(['active', 'reducing', 'halted']),
  latches: z.array(z.object({ name: z.string(), reason: z.string(), atMs: ms })),
  fenced: z.string().nullable(),
  reconciliation: z.object({ lastAtMs: ms.nullable(), unresolved: z.number().int() }),
  budget: z.array(z.object({ pool: z.string(), available: z.number().nullable(), queued: z.number().int() })),
  polls: z.array(z.object({ poll: z.string(), ageMs: z.number().nullable() })),
  lease: z
    .object({ holder: z.string(), fencingToken: z.number().int().nullable(), held: z.boolean() })
    .nullable()
    .describe('The account lease (daemon.lease); null without one.'),
});

export const strategySchema = z.object({
  id: z.string(),
  name: z.string(),
  symbols: z.array(z.string()),
  params: z.unknown(),
  state: z.enum(['running', 'paused', 'faulted']),
  errors: z.number().int(),
  lastError: z.string().nullable(),
  pnl: z.object({ realized: decimal, fees: decimal, fills: z.number().int() }),
  openOrders: z.number().int(),
  positions: z.array(z.object({ symbol: z.string(), side: z.string(), size: decimal, entryPrice: decimal.nullable(), unrealizedPnl: decimal.nullable() })),
});

export const orderSchema = z.object({
  clientOid: z.string(),
  orderId: z.string().nullable(),
  strategyId: z.string(),
  surface: z.string(),
  symbol: z.string(),
  side: z.string(),
  kind: z.string(),
  price: decimal.nullable(),
  size: decimal,
  filledSize: decimal,
  avgPrice: decimal.nullable(),
  state: z.string(),
  role: z.string().nullable(),
  createdAtMs: ms,
  updatedAtMs: ms,
});

export const orderDetailSchema = z.object({
  order: orderSchema,
  history: z.array(z.object({ event: z.string(), state: z.string(), atMs: ms })),
});

export const fillSchema = z.object({
  clientOid: z.string(),
  orderId: z.string(),
  fillId: z.string(),
  strategyId: z.string().nullable(),
  symbol: z.string().nullable(),
  price: decimal,
  size: decimal,
  fee: decimal,
  atMs: ms,
});

export const balanceSchema = z.object({ surface: z.string(), asset: z.string(), total: decimal, available: decimal.nullable() });

export const positionSchema = z.object({
  symbol: z.string(),
  side: z.string(),
  size: decimal,
  entryPrice: decimal.nullable(),
  markPrice: decimal.nullable(),
  unrealizedPnl: decimal.nullable(),
  liquidationPrice: decimal.nullable(),
});

export const equityPointSchema = z.object({ surface: z.string(), value: decimal, atMs: ms });

const realisedFields = {
  realized: decimal.describe('realised PnL at average cost, fees included (quote currency)'),
  fees: decimal,
  fills: z.number().int(),
  roundTrips: z.number().int().describe("times a strategy's holding of a symbol went back to zero, or through it"),
};

export const profitWindowSchema = z.object({
  window: z.enum(['today', '7d', 'all']).describe('today: since 00:00 UTC; 7d: the last 7 × 24 h; all: every fill'),
  sinceMs: ms.nullable(),
  strategies: z.array(z.object({ id: z.string(), ...realisedFields })),
  total: z.object(realisedFields),
});

export const symbolPerformanceSchema = z.object({ symbol: z.string(), ...realisedFields });

const sideOutcome = z.object({
  clientOid: z.string(),
  createdAtMs: ms,
  state: z.string(),
  error: z.string().nullable(),
  requests: z.array(z.tuple([ms, ms])),
  filledSize: decimal,
  avgPrice: decimal.nullable(),
  fees: decimal,
  firstFillMs: ms.nullable(),
});
const cause = z.enum(['none', 'unsettled', 'latency', 'queue', 'partial-fills', 'data-gaps', 'decision']);

/** The divergence report (src/report/divergence.ts): live orders paired with the shadow's. */
export const divergenceSchema = z.object({
  window: z.object({ fromMs: z.number(), toMs: z.number() }),
  live: z.object({ source: z.string(), orders: z.number().int(), fills: z.number().int() }),
  sim: z.object({ source: z.string(), orders: z.number().int(), fills: z.number().int(), latencyMs: z.number().int(), fillModel: z.string() }),
  options: z.object({
    pairWindowMs: z.number(),
    timeToleranceMs: z.number(),
    simArrivalMs: z.number(),
    arrivalToleranceMs: z.number(),
    gapMs: z.number(),
    sampleMs: z.number(),
  }),
  summary: z.object({
    paired: z.number().int(),
    matched: z.number().int(),
    liveOnly: z.number().int(),
    simOnly: z.number().int(),
    causes: z.array(z.object({ cause, orders: z.number().int(), money: decimal, why: z.string() })),
    livePnl: decimal,
    simPnl: decimal,
  }),
  pairs: z.array(
    z.object({
      strategyId: z.string(),
      symbol: z.string(),
      side: z.enum(['buy', 'sell']),
      kind: z.enum(['limit', 'market']),
      price: decimal.nullable(),
      size: decimal,
      live: sideOutcome,
      sim: sideOutcome,
      priceDiff: decimal.nullable(),
      feeDiff: decimal,
      fillTimeDiffMs: z.number().int().nullable(),
      cause,
    }),
  ),
  liveOnly: z.array(sideOutcome),
  simOnly: z.array(sideOutcome),
  pnl: z.array(z.object({ atMs: ms, live: decimal, sim: decimal, gap: decimal })),
});

export const eventSchema = z.object({
  kind: z.enum(['order', 'fill', 'state', 'equity', 'strategy', 'command']),
  atMs: ms,
  text: z.string(),
  data: z.record(z.string(), z.unknown()),
});

export const commandOkSchema = z.object({ ok: z.literal(true), detail: z.string() });

// Requests. Query strings arrive as text: numbers are coerced, and unknown keys are refused (a misspelt filter
// would otherwise be silently ignored).
const limit = (max: number) => z.coerce.number().int().min(1).max(max).optional();
const strategyFilter = z.string().min(1).max(64).optional().describe('a strategy instance id');

export const ordersQuery = z.strictObject({ scope: z.enum(['open', 'recent']).default('open'), strategy: strategyFilter, limit: limit(1000) });
export const fillsQuery = z.strictObject({ strategy: strategyFilter, limit: limit(1000) });
export const equityQuery = z.strictObject({ since: z.coerce.number().int().min(0).optional().describe('milliseconds since the epoch') });
export const eventsQuery = z.strictObject({ limit: limit(500) });
export const noQuery = z.strictObject({});

export const strategyParams = z.strictObject({ id: z.string().min(1).max(64) });
export const orderParams = z.strictObject({ clientOid: z.string().min(1).max(64) });

// A secret pasted into a reason (the token, a key) is scrubbed: reasons are journaled, shown in the status and notified.
const reasonRequired = z.string().trim().min(1, 'a reason is required: it is journaled with the command').max(500).transform(scrubSecrets);
const reasonOptional = z.string().trim().max(500).transform(scrubSecrets).optional();

export const reasonBody = z.strictObject({ reason: reasonRequired });
export const optionalReasonBody = z.strictObject({ reason: reasonOptional });
export const pauseBody = z.strictObject({ cancelOrders: z.boolean().default(false), reason: reasonOptional });
export const forceExitBody = z.strictObject({ symbol: z.string().min(1).max(64).describe("one of the strategy's symbols"), reason: reasonOptional });

// The response schemas describe the shapes of control.ts: a change there that is not made here fails to compile.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const same = <T extends true>(value: T): T => value;
same<Same<z.infer<typeof statusSchema>, ControlStatus>>(true);
same<Same<z.infer<typeof strategySchema>, StrategyView>>(true);
same<Same<z.infer<typeof orderSchema>, OrderView>>(true);
same<Same<z.infer<typeof fillSchema>, FillView>>(true);
same<Same<z.infer<typeof eventSchema>, ControlEvent>>(true);
same<Same<z.infer<typeof profitWindowSchema>, ProfitWindow>>(true);
same<Same<z.infer<typeof symbolPerformanceSchema>, SymbolPerformance>>(true);
same<Same<z.infer<typeof divergenceSchema>, DivergenceReport>>(true);
same<Same<z.infer<typeof commandOkSchema>, Extract<CommandResult, { ok: true }>>>(true);
