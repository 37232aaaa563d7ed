// The trade list of a backtest: round trips built from the fills at average cost, one book per (strategy, symbol,
// position side). A trade opens when the holding leaves zero and closes when it returns to zero; a fill that flips
// the holding closes one trade and opens the next, its size and fee split between them. Each trade carries its
// entry and exit (time, average price), size, PnL (exact, fees included), fees, and its MAE/MFE: the worst and best
// unrealised PnL while open. MAE/MFE are measured on the report's price samples (one per sample period), so a move
// between two samples is not seen.
import { Decimal } from '../domain/decimal.js';
import type { Fill, PositionSide } from '../domain/market.js';
import { FixedPoint } from './fixed-point.js';
import { isoTime } from './iso-time.js';
import { placesOf, tradeStatsOf, type TradeStats } from './metrics.js';

/** A fill as the trade list reads it: whose it is and, on futures in hedge mode, which position side it traded. */
export interface OwnedFill {
  fill: Fill;
  strategy: string;
  /** Futures: the position side; null on spot (one net holding per symbol, which may flip). */
  positionSide: PositionSide | null;
}

/** One round trip. Money as exact decimal strings (8 places); times in ms since the epoch and as ISO text. */
export interface RoundTrip {
  strategy: string;
  symbol: string;
  side: 'long' | 'short';
  entryMs: number;
  entryAt: string;
  /** The average price of what was opened (adds included). */
  entryPrice: string;
  /** null while the trade is still open at the end of the run. */
  exitMs: number | null;
  exitAt: string | null;
  /** The average price of what was closed so far. */
  exitPrice: string | null;
  durationMs: number | null;
  /** All that was opened (base units): closed in full once the trade is closed. */
  size: string;
  /** Realised at average cost, less every fee of the trade (for an open trade: what was closed so far). */
  pnl: string;
  fees: string;
  /** Worst and best unrealised PnL while open (0 included: at entry it is nothing), on the report's price samples. */
  mae: string;
  mfe: string;
  fills: number;
}

/** A symbol's price samples: [time ms, price], in time order. */
export type PriceSamples = Record<string, ReadonlyArray<readonly [number, Decimal]>>;

/** A trade still open in its book. */
export interface Open {
  trip: Omit<RoundTrip, 'entryAt' | 'exitMs' | 'exitAt' | 'exitPrice' | 'durationMs' | 'size' | 'pnl' | 'fees' | 'mae' | 'mfe' | 'entryPrice'>;
  /** Signed holding (negative: short) and its cost at average; amounts in units of the run's FixedPoint. */
  qty: bigint;
  cost: bigint;
  openedSize: bigint;
  openedValue: bigint;
  closedSize: bigint;
  closedValue: bigint;
  realized: bigint;
  fees: bigint;
  mae: bigint;
  mfe: bigint;
}

const iso = isoTime;

/** The unrealised PnL of a holding at `price`: long, worth qty × price against its cost; short, the reverse. */
export const unrealized = (fx: FixedPoint, o: Open, price: bigint) => (o.qty < 0n ? o.cost - fx.mul(-o.qty, price) : fx.mul(o.qty, price) - o.cost);

/** A fill on the side an open trip holds adds to it: `signed` (negative: short) of `size` at `price`, with its fee. */
export function extend(fx: FixedPoint, o: Open, size: bigint, signed: bigint, price: bigint, fee: bigint): void {
  const value = fx.mul(price, size);
  o.qty += signed;
  o.cost += value;
  o.openedSize += size;
  o.openedValue += value;
  o.fees += fee;
  o.trip.fills++;
}

/**
 * A fill against an open trip's side closes up to what it holds, at the trip's average cost: realised PnL, fees and
 * closed size booked on the trip. Returns the size closed and its share of the fee (a flip splits the fee by size).
 */
export function reduce(fx: FixedPoint, o: Open, size: bigint, price: bigint, fee: bigint): { closing: bigint; fee: bigint } {
  const held = o.qty < 0n ? -o.qty : o.qty;
  const closing = size < held ? size : held;
  const value = fx.mul(fx.div(o.cost, held, 18), closing);
  const closedValue = fx.mul(price, closing);
  o.realized += o.qty < 0n ? value - closedValue : closedValue - value;
  const closingFee = closing === size ? fee : fx.div(fx.mul(fee, closing), size, 18);
  o.fees += closingFee;
  o.closedSize += closing;
  o.closedValue += closedValue;
  o.trip.fills++;
  const remaining = held - closing;
  o.qty = o.qty < 0n ? -remaining : remaining;
  o.cost = remaining === 0n ? 0n : o.cost - value;
  return { closing, fee: closingFee };
}

/** The trade as the list shows it: closed at `exitMs`, or still open (null). */
export function finish(fx: FixedPoint, o: Open, exitMs: number | null): RoundTrip {
  const closed = exitMs !== null;
  const t = o.trip;
  // Written out whole, in the order of the spread it stands for (report.json keeps it): a spread first in a literal
  // costs microseconds.
  return {
    strategy: t.strategy,
    symbol: t.symbol,
    side: t.side,
    entryMs: t.entryMs,
    entryAt: iso(t.entryMs),
    fills: t.fills,
    entryPrice: fx.text(fx.div(o.openedValue, o.openedSize, 18), 8),
    exitMs,
    exitAt: closed ? iso(exitMs) : null,
    exitPrice: o.closedSize === 0n ? null : fx.text(fx.div(o.closedValue, o.closedSize, 18), 8),
    durationMs: closed ? exitMs - o.trip.entryMs : null,
    size: fx.text(o.openedSize),
    pnl: fx.text(o.realized - o.fees, 8),
    fees: fx.text(o.fees, 8),
    mae: fx.text(o.mae, 8),
    mfe: fx.text(o.mfe, 8),
  };
}

/**
 * The round trips of a run, in order of their entry (open ones last among equals, at the end of the list as the run
 * left them). `fills` in time order; `prices` the report's samples per symbol, for MAE/MFE. Over a whole list of
 * fills; a backtest builds the same list as it goes (RoundTripBooks).
 */
export function roundTrips(fills: readonly OwnedFill[], prices: PriceSamples = {}): RoundTrip[] {
  const fx = FixedPoint.forPlaces(
    placesOf(
      fills.map((f) => f.fill),
      Object.values(prices).flatMap((series) => series.map(([, price]) => price)),
    ),
  );
  const books = new Map<string, Open>();
  /** Per symbol: how far its samples have been read. */
  const cursor = new Map<string, number>();
  const out: RoundTrip[] = [];
  // Samples up to `ms` move the MAE/MFE of every open trade of their symbol.
  const advance = (symbol: string, ms: number) => {
    const series = prices[symbol];
    if (!series) return;
    let i = cursor.get(symbol) ?? 0;
    for (; i < series.length && series[i]![0] < ms; i++) {
      if (books.size === 0) continue;
      const price = fx.of(series[i]![1]);
      for (const o of books.values()) {
        if (o.trip.symbol !== symbol) continue;
        const u = unrealized(fx, o, price);
        if (u < o.mae) o.mae = u;
        if (u > o.mfe) o.mfe = u;
      }
    }
    cursor.set(symbol, i);
  };
  for (const { fill: f, strategy, positionSide } of fills) {
    // A sample at a fill's own instant is taken after it: read the samples before it first.
    advance(f.symbol, f.timestampMs);
    const key = `${strategy}\u0000${f.symbol}\u0000${positionSide ?? ''}`;
    const size = fx.of(f.size);
    const price = fx.of(f.price);
    const fee = fx.of(f.fee);
    const signed = f.side === 'buy' ? size : -size;
    let o = books.get(key);
    let opening = size;
    let openingFee = fee;
    if (o) {
      const reducing = o.qty < 0n !== signed < 0n;
      if (reducing) {
        const closed = reduce(fx, o, size, price, fee);
        opening = size - closed.closing;
        openingFee = fee - closed.fee;
        if (o.qty === 0n) {
          out.push(finish(fx, o, f.timestampMs));
          books.delete(key);
          o = undefined;
        }
      } else {
        extend(fx, o, size, signed, price, fee);
        continue;
      }
    }
    if (o || opening === 0n) continue;
    const value = fx.mul(price, opening);
    books.set(key, {
      trip: { strategy, symbol: f.symbol, side: signed < 0n ? 'short' : 'long', entryMs: f.timestampMs, fills: 1 },
      qty: signed < 0n ? -opening : opening,
      cost: value,
      openedSize: opening,
      openedValue: value,
      closedSize: 0n,
      closedValue: 0n,
      realized: 0n,
      fees: openingFee,
      mae: 0n,
      mfe: 0n,
    });
  }
  for (const symbol of Object.keys(prices)) advance(symbol, Number.POSITIVE_INFINITY);
  out.push(...[...books.values()].map((o) => finish(fx, o, null)));
  return out.sort((a, b) => a.entryMs - b.entryMs || (a.exitMs ?? Infinity) - (b.exitMs ?? Infinity));
}

/** Per strategy, of its closed trades: how many, the share won (net of fees, in %) and gross won / gross lost. */
export function tradeStats(trips: readonly RoundTrip[]): TradeStats {
  const closed = trips.filter((t) => t.exitMs !== null);
  const pnls = closed.map((t) => Decimal.from(t.pnl));
  const wins = pnls.filter((p) => p.gt(Decimal.ZERO));
  const won = wins.reduce((a, p) => a.add(p), Decimal.ZERO);
  const lost = pnls.filter((p) => p.isNegative()).reduce((a, p) => a.sub(p), Decimal.ZERO);
  return tradeStatsOf({ closed: closed.length, open: trips.length - closed.length, wins: wins.length, won, lost });
}

/** round-trips.csv's columns. */
export const ROUND_TRIPS_CSV_HEADER = 'strategy,symbol,side,entry_ts,entry_price,exit_ts,exit_price,duration_ms,size,pnl,fees,mae,mfe,fills';

/** A round-trips.csv line (an open trade: exit columns empty). */
export function roundTripCsvLine(t: RoundTrip): string {
  return [
    t.strategy,
    t.symbol,
    t.side,
    t.entryMs,
    t.entryPrice,
    t.exitMs ?? '',
    t.exitPrice ?? '',
    t.durationMs ?? '',
    t.size,
    t.pnl,
    t.fees,
    t.mae,
    t.mfe,
    t.fills,
  ].join(',');
}
