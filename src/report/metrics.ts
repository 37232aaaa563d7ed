// Backtest figures from an equity series and the fills: the strategy's PnL beside buy-and-hold, return, drawdown,
// Sharpe, Sortino, fees, win rate, each strategy's PnL from its own fills, and what was realised by time window and
// by symbol (the operator's /profit and /performance).
// Money figures are exact decimals; ratios (Sharpe, Sortino) are floats, as statistics may be.
import { Decimal } from '../domain/decimal.js';
import type { Fill } from '../domain/market.js';
import { book, type Book } from './average-cost.js';
import { FixedPoint } from './fixed-point.js';

export interface EquityPoint {
  ts: number;
  /** The account as it is. */
  equity: Decimal;
  /** The account as it started (balances and positions), at this sample's prices: buy-and-hold. */
  hold: Decimal;
  /**
   * Futures, in a run that trades them: the account's margin rate (equity / position value at mark) and the
   * maintenance rate it is compared to; null while it holds no position.
   */
  marginRate?: Decimal | null;
  maintenanceRate?: Decimal | null;
}

export interface TradeRow extends Fill {
  /** Realised PnL of this fill against the running average cost of the symbol (FIFO-free, average cost). */
  realizedPnl: Decimal;
}

export interface Metrics {
  /**
   * What the trading earned: realised and unrealised PnL on what was traded (at the last prices), fees included.
   * The account's change less the buy-and-hold of the starting account.
   */
  strategyPnl: string;
  /** Of the starting equity. */
  strategyReturnPct: string;
  /** The starting balances and positions valued at the first and at the last prices: the account had nothing been traded. */
  buyAndHoldPnl: string;
  buyAndHoldReturnPct: string;
  /** The account's change: strategy PnL plus buy-and-hold. */
  accountPnl: string;
  accountReturnPct: string;
  startEquity: string;
  endEquity: string;
  /**
   * The largest fall of the strategy's equity (the starting equity plus the strategy PnL at each sample: what the
   * starting holdings did on their own does not count), in % of its peak before the fall.
   */
  maxDrawdownPct: string;
  /** Of the strategy equity's returns per sample; annualised only over a day of data or more (ratioBasis says which). */
  sharpe: number;
  sortino: number;
  /** How Sharpe and Sortino were scaled: `annualised from 1 s samples`, or `per 1 s sample, not annualised: under a day of data`. */
  ratioBasis: string;
  fills: number;
  /** Closed round trips, every strategy's (round-trips.csv): the trades the win rate and the profit factor count. */
  trades: number;
  feesPaid: string;
  /** Of the closed round trips, those whose PnL (fees included) is above 0. */
  winRatePct: string;
  /** Gross PnL of the winning round trips over that of the losing ones. */
  profitFactor: string;
  /** Samples with a position or an inventory, in % of all samples. */
  exposurePct: string;
}

/** The most decimal places among the fills' prices, sizes and fees, and among `more`. */
export function placesOf(fills: readonly Fill[], more: Iterable<Decimal> = []): number {
  let places = 0;
  for (const f of fills) places = Math.max(places, f.price.scale, f.size.scale, f.fee.scale);
  for (const d of more) places = Math.max(places, d.scale);
  return places;
}

/**
 * Realised PnL per fill with an average-cost book per symbol (longs and shorts), over a whole list of fills (a
 * backtest books them as they happen: ExecutionLedger).
 */
export function realize(fills: Fill[]): TradeRow[] {
  const fx = FixedPoint.forPlaces(placesOf(fills));
  const books = new Map<string, Book>();
  return fills.map((f) => {
    let b = books.get(f.symbol);
    if (!b) books.set(f.symbol, (b = { qty: 0n, cost: 0n }));
    // Object.assign: a spread with a field after it is much slower to build.
    return Object.assign({}, f, { realizedPnl: fx.decimal(book(fx, b, f.side, fx.of(f.price), fx.of(f.size)) - fx.of(f.fee)) });
  });
}

export interface StrategyPnl {
  /** Realised at average cost, fees included. */
  realized: string;
  /** What it holds of what it traded, at the last price, against its cost. */
  unrealized: string;
  fees: string;
  /** Funding settled on its futures positions (a change of collateral: negative when paid). */
  funding: string;
  /** realized + unrealized + funding. */
  pnl: string;
  fills: number;
}

/** One fill into a strategy's books: its symbol's average-cost book, the realised PnL net of the fee, the fee, the count. */
export function bookStrategyFill(fx: FixedPoint, a: StrategyBooks, f: Fill): void {
  let b = a.books.get(f.symbol);
  if (!b) a.books.set(f.symbol, (b = { qty: 0n, cost: 0n }));
  const fee = fx.of(f.fee);
  a.realized += book(fx, b, f.side, fx.of(f.price), fx.of(f.size)) - fee;
  a.fees += fee;
  a.fills++;
}

/**
 * Each strategy's PnL from its own fills (an average-cost book per strategy and symbol): realised, fees included,
 * plus unrealised on what it still holds of what it traded, at `lastPrice`, plus the funding of its positions
 * (`funding`). Over all strategies it is the account's strategy PnL, however they share symbols. (A backtest books
 * the fills as they happen: StrategyPnlBooks.)
 */
export function strategyPnls(
  fills: Fill[],
  strategyOf: (f: Fill) => string,
  lastPrice: (symbol: string) => Decimal | null | undefined,
  funding: ReadonlyArray<{ strategy: string; amount: Decimal }> = [],
): Record<string, StrategyPnl> {
  const fx = FixedPoint.forPlaces(
    placesOf(
      fills,
      funding.map((f) => f.amount),
    ),
  );
  const acc = new Map<string, StrategyBooks>();
  const of = (id: string) => {
    let a = acc.get(id);
    if (!a) acc.set(id, (a = { realized: 0n, fees: 0n, funding: 0n, fills: 0, books: new Map() }));
    return a;
  };
  for (const f of funding) {
    const a = of(f.strategy);
    a.funding += fx.of(f.amount);
  }
  for (const f of fills) bookStrategyFill(fx, of(strategyOf(f)), f);
  return strategyPnlsOf(fx, acc, lastPrice);
}

/** One strategy's books: realised PnL (fees included), fees, funding, fills, and an average-cost book per symbol. */
export interface StrategyBooks {
  realized: bigint;
  fees: bigint;
  funding: bigint;
  fills: number;
  books: Map<string, Book>;
}

/** The strategies' PnL from their books (amounts in units of `fx`), by strategy id; unrealised at `lastPrice`. */
export function strategyPnlsOf(
  fx: FixedPoint,
  acc: ReadonlyMap<string, StrategyBooks>,
  lastPrice: (symbol: string) => Decimal | null | undefined,
): Record<string, StrategyPnl> {
  const out: Record<string, StrategyPnl> = {};
  for (const [id, a] of [...acc].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) {
    let unrealized = Decimal.ZERO;
    for (const [symbol, b] of a.books) {
      if (b.qty === 0n) continue;
      const last = lastPrice(symbol);
      if (!last) continue;
      // Long: worth qty × last, cost `cost`; short: owes |qty| × last, received `cost`. (The last price may carry
      // more places than the fills: worked out as Decimals.)
      const qty = fx.decimal(b.qty);
      const cost = fx.decimal(b.cost);
      unrealized = unrealized.add(qty.isNegative() ? cost.sub(qty.abs().mul(last)) : qty.mul(last).sub(cost));
    }
    const realized = fx.decimal(a.realized);
    const fundingSum = fx.decimal(a.funding);
    out[id] = {
      realized: realized.toString(8),
      unrealized: unrealized.toString(8),
      fees: fx.text(a.fees, 8),
      funding: fundingSum.toString(8),
      pnl: realized.add(unrealized).add(fundingSum).toString(8),
      fills: a.fills,
    };
  }
  return out;
}

/** What was realised over a window, of a strategy, a symbol or all: money as exact decimal strings (8 places). */
export interface RealisedFigures {
  /** Realised at average cost, fees included (as StrategyPnl.realized). */
  realized: string;
  fees: string;
  fills: number;
  /** Round trips closed: times a holding (one book per strategy and symbol) went back to zero, or through it. */
  roundTrips: number;
}

/** realisedBreakdown()'s answer. */
export interface RealisedBreakdown {
  /** One per start asked for, in that order: the fills at or after it (null: all), per strategy, and their total. */
  windows: Array<{ sinceMs: number | null; byStrategy: Record<string, RealisedFigures>; total: RealisedFigures }>;
  /** Per symbol: every strategy, all the fills. */
  bySymbol: Record<string, RealisedFigures>;
}

interface RealisedSum {
  realized: bigint;
  fees: bigint;
  fills: number;
  roundTrips: number;
}

/**
 * Realised PnL by window and by symbol, with strategyPnls()'s definition: one average-cost book per strategy and
 * symbol over every fill (so a window's closes realise against what was bought before it), a fill's realised PnL
 * net of its fee counted in each window its time falls in. The all-time window of a strategy is its
 * StrategyPnl.realized and fees, to the digit.
 */
export function realisedBreakdown(fills: readonly Fill[], strategyOf: (f: Fill) => string, windows: ReadonlyArray<number | null>): RealisedBreakdown {
  const fx = FixedPoint.forPlaces(placesOf(fills));
  const books = new Map<string, Map<string, Book>>();
  const zero = (): RealisedSum => ({ realized: 0n, fees: 0n, fills: 0, roundTrips: 0 });
  const sums = windows.map(() => ({ byStrategy: new Map<string, RealisedSum>(), total: zero() }));
  const bySymbol = new Map<string, RealisedSum>();
  const add = (to: RealisedSum, realized: bigint, fee: bigint, closed: boolean) => {
    to.realized += realized;
    to.fees += fee;
    to.fills++;
    if (closed) to.roundTrips++;
  };
  for (const f of fills) {
    const strategy = strategyOf(f);
    let mine = books.get(strategy);
    if (!mine) books.set(strategy, (mine = new Map<string, Book>()));
    let b = mine.get(f.symbol);
    if (!b) mine.set(f.symbol, (b = { qty: 0n, cost: 0n }));
    const before = b.qty;
    const fee = fx.of(f.fee);
    const realized = book(fx, b, f.side, fx.of(f.price), fx.of(f.size)) - fee;
    const closed = before !== 0n && (b.qty === 0n || b.qty < 0n !== before < 0n);
    windows.forEach((sinceMs, i) => {
      if (sinceMs !== null && f.timestampMs < sinceMs) return;
      const w = sums[i]!;
      let s = w.byStrategy.get(strategy);
      if (!s) w.byStrategy.set(strategy, (s = zero()));
      add(s, realized, fee, closed);
      add(w.total, realized, fee, closed);
    });
    let s = bySymbol.get(f.symbol);
    if (!s) bySymbol.set(f.symbol, (s = zero()));
    add(s, realized, fee, closed);
  }
  const figures = (s: RealisedSum): RealisedFigures => ({
    realized: fx.text(s.realized, 8),
    fees: fx.text(s.fees, 8),
    fills: s.fills,
    roundTrips: s.roundTrips,
  });
  const record = (m: ReadonlyMap<string, RealisedSum>): Record<string, RealisedFigures> =>
    Object.fromEntries([...m].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)).map(([k, s]) => [k, figures(s)]));
  return {
    windows: windows.map((sinceMs, i) => ({ sinceMs, byStrategy: record(sums[i]!.byStrategy), total: figures(sums[i]!.total) })),
    bySymbol: record(bySymbol),
  };
}

/**
 * What the metrics take of a run's executions: how many, how many closed (part of) a position or an inventory (they
 * realised something, fees apart), how many of those won (fees included), what they won and lost, and the fees.
 */
export interface TradeTotals {
  fills: number;
  closes: number;
  wins: number;
  grossWin: Decimal;
  grossLoss: Decimal;
  fees: Decimal;
}

export function tradeTotals(trades: readonly TradeRow[]): TradeTotals {
  const closes = trades.filter((t) => !t.realizedPnl.add(t.fee).isZero());
  const wins = closes.filter((t) => t.realizedPnl.gt(Decimal.ZERO));
  return {
    fills: trades.length,
    closes: closes.length,
    wins: wins.length,
    grossWin: wins.reduce((a, t) => a.add(t.realizedPnl), Decimal.ZERO),
    grossLoss: closes.filter((t) => t.realizedPnl.isNegative()).reduce((a, t) => a.sub(t.realizedPnl), Decimal.ZERO),
    fees: trades.reduce((a, t) => a.add(t.fee), Decimal.ZERO),
  };
}

function stats(xs: number[]): { mean: number; sd: number; downside: number } {
  if (xs.length < 2) return { mean: 0, sd: 0, downside: 0 };
  const mean = xs.reduce((a, x) => a + x, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1));
  const downside = Math.sqrt(xs.reduce((a, x) => a + Math.min(0, x) ** 2, 0) / (xs.length - 1));
  return { mean, sd, downside };
}

/** a / b > c / d, exactly (b and d not zero, of any sign). */
function greater(a: Decimal, b: Decimal, c: Decimal, d: Decimal): boolean {
  // a/b - c/d = (a·d - c·b) / (b·d), the products on one scale.
  const left = a.scale + d.scale;
  const right = c.scale + b.scale;
  const scale = Math.max(left, right);
  const diff = a.mantissa * d.mantissa * 10n ** BigInt(scale - left) - c.mantissa * b.mantissa * 10n ** BigInt(scale - right);
  return b.mantissa < 0n !== d.mantissa < 0n ? diff < 0n : diff > 0n;
}

/**
 * The largest drawdown of the equity (from `first`), in % of the peak before it, rounded half-up to 6 places: the
 * largest of each sample's rounded drawdown, none below 0. Rounding keeps the order: the drawdowns are compared
 * exactly as fractions, and only the largest is divided out.
 */
function maxDrawdownPct(equity: readonly EquityPoint[], first: Decimal): Decimal {
  let peak = first;
  let worst: { fall: Decimal; peak: Decimal } | null = null;
  for (const p of equity) {
    if (p.equity.gt(peak)) peak = p.equity;
    if (peak.isZero()) continue;
    const fall = peak.sub(p.equity);
    if (worst === null || greater(fall, peak, worst.fall, worst.peak)) worst = { fall, peak };
  }
  const dd = worst ? worst.fall.mul(Decimal.fromInt(100)).div(worst.peak, 6) : Decimal.ZERO;
  return dd.gt(Decimal.ZERO) ? dd : Decimal.ZERO;
}

const round = (x: number) => (Number.isFinite(x) ? Math.round(x * 1e6) / 1e6 : 0);

export interface TradeStats {
  trades: number;
  open: number;
  winRatePct: string;
  profitFactor: string;
}

/** The stats from their counts and sums: closed and open trades, the closed ones won, gross won and gross lost. */
export function tradeStatsOf(c: { closed: number; open: number; wins: number; won: Decimal; lost: Decimal }): TradeStats {
  return {
    trades: c.closed,
    open: c.open,
    winRatePct:
      c.closed === 0
        ? '0'
        : Decimal.fromInt(c.wins * 100)
            .div(Decimal.fromInt(c.closed), 4)
            .toString(),
    profitFactor: c.lost.isZero() ? (c.won.isZero() ? '0' : 'inf') : c.won.div(c.lost, 4).toString(),
  };
}

const DAY_MS = 24 * 3600 * 1000;
const YEAR_MS = 365 * DAY_MS;

/** What a run's figures are worked out from. */
export interface MetricInputs {
  /** The account's equity and its buy-and-hold, sampled every `sampleMs`. */
  equity: readonly EquityPoint[];
  /** The executions: fills and fees. */
  executions: readonly TradeRow[] | TradeTotals;
  /** Every strategy's round trips together (TripLog.stats()): trades, win rate, profit factor. Absent: none closed. */
  trips?: TradeStats;
  /** Per sample, whether a position or an inventory was held. */
  exposed: readonly boolean[];
  sampleMs: number;
}

/** The strategy's equity at each sample: the starting equity plus the strategy PnL (the account less buy-and-hold). */
export function strategyEquity(equity: readonly EquityPoint[]): EquityPoint[] {
  const holdFirst = equity[0]?.hold ?? Decimal.ZERO;
  return equity.map((p) => ({ ...p, equity: p.equity.sub(p.hold).add(holdFirst) }));
}

/**
 * The figures of a run, each with one definition (the report, the summary, sweeps and optimisation read these):
 * drawdown, Sharpe and Sortino of the strategy's equity (strategyEquity); trades, win rate and profit factor of the
 * closed round trips; exposure the share of samples with a position or an inventory.
 */
export function computeMetrics(input: MetricInputs): Metrics {
  const { equity, exposed, sampleMs } = input;
  const first = equity[0]?.equity ?? Decimal.ZERO;
  const last = equity[equity.length - 1]?.equity ?? first;
  const holdFirst = equity[0]?.hold ?? first;
  const holdLast = equity[equity.length - 1]?.hold ?? holdFirst;
  const account = last.sub(first);
  const hold = holdLast.sub(holdFirst);
  const strategy = account.sub(hold);
  const pct = (x: Decimal, of: Decimal) => (of.isZero() ? '0' : x.mul(Decimal.fromInt(100)).div(of, 6).toString());
  const own = strategyEquity(equity);
  const maxDd = maxDrawdownPct(own, own[0]?.equity ?? first);
  const returns: number[] = [];
  for (let i = 1; i < own.length; i++) {
    const prev = own[i - 1]!.equity.toNumber();
    if (prev !== 0) returns.push(own[i]!.equity.toNumber() / prev - 1);
  }
  const s = stats(returns);
  const spanMs = equity.length > 1 ? equity[equity.length - 1]!.ts - equity[0]!.ts : 0;
  const annualised = spanMs >= DAY_MS;
  const k = annualised ? Math.sqrt(YEAR_MS / sampleMs) : 1;
  const period = sampleMs % 1000 === 0 ? `${sampleMs / 1000} s` : `${sampleMs} ms`;
  const ratioBasis = annualised ? `annualised from ${period} samples` : `per ${period} sample, not annualised: under a day of data`;
  const { fills, fees } = Array.isArray(input.executions) ? tradeTotals(input.executions as TradeRow[]) : (input.executions as TradeTotals);
  const trips = input.trips ?? tradeStatsOf({ closed: 0, open: 0, wins: 0, won: Decimal.ZERO, lost: Decimal.ZERO });
  return {
    strategyPnl: strategy.toString(8),
    strategyReturnPct: pct(strategy, first),
    buyAndHoldPnl: hold.toString(8),
    buyAndHoldReturnPct: pct(hold, holdFirst),
    accountPnl: account.toString(8),
    accountReturnPct: pct(account, first),
    startEquity: first.toString(8),
    endEquity: last.toString(8),
    maxDrawdownPct: maxDd.toString(),
    sharpe: round(s.sd === 0 ? 0 : (s.mean / s.sd) * k),
    sortino: round(s.downside === 0 ? 0 : (s.mean / s.downside) * k),
    ratioBasis,
    fills,
    trades: trips.trades,
    feesPaid: fees.toString(8),
    winRatePct: trips.winRatePct,
    profitFactor: trips.profitFactor,
    exposurePct:
      exposed.length === 0
        ? '0'
        : Decimal.fromInt(exposed.filter(Boolean).length * 100)
            .div(Decimal.fromInt(exposed.length), 4)
            .toString(),
  };
}
