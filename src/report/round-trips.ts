// The trade list of a backtest: round trips built from the fills at average cost, one book per (strategy, symbol,
// position side). A trade opens when the holding leaves zero and closes when it returns to zero; a fill that flips
// the holding closes one trade and opens the next, its size and fee split between them. Each trade carries its
// entry and exit (time, average price), size, PnL (exact, fees included), fees, and its MAE/MFE: the worst and best
// unrealised PnL while open. MAE/MFE are measured on the report's price samples (one per sample period), so a move
// between two samples is not seen.
import { Decimal } from '../domain/decimal.js';
import type { Fill, PositionSide } from '../domain/market.js';

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

interface Open {
  trip: Omit<RoundTrip, 'exitMs' | 'exitAt' | 'exitPrice' | 'durationMs' | 'size' | 'pnl' | 'fees' | 'mae' | 'mfe' | 'entryPrice'>;
  /** Signed holding (negative: short) and its cost at average. */
  qty: Decimal;
  cost: Decimal;
  openedSize: Decimal;
  openedValue: Decimal;
  closedSize: Decimal;
  closedValue: Decimal;
  realized: Decimal;
  fees: Decimal;
  mae: Decimal;
  mfe: Decimal;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The unrealised PnL of a holding at `price`: long, worth qty × price against its cost; short, the reverse. */
const unrealized = (o: Open, price: Decimal) => (o.qty.isNegative() ? o.cost.sub(o.qty.abs().mul(price)) : o.qty.mul(price).sub(o.cost));

function finish(o: Open, exitMs: number | null): RoundTrip {
  const closed = exitMs !== null;
  return {
    ...o.trip,
    entryPrice: o.openedValue.div(o.openedSize, 18).toString(8),
    exitMs,
    exitAt: closed ? iso(exitMs) : null,
    exitPrice: o.closedSize.isZero() ? null : o.closedValue.div(o.closedSize, 18).toString(8),
    durationMs: closed ? exitMs - o.trip.entryMs : null,
    size: o.openedSize.toString(),
    pnl: o.realized.sub(o.fees).toString(8),
    fees: o.fees.toString(8),
    mae: o.mae.toString(8),
    mfe: o.mfe.toString(8),
  };
}

/**
 * The round trips of a run, in order of their entry (open ones last among equals, at the end of the list as the run
 * left them). `fills` in time order; `prices` the report's samples per symbol, for MAE/MFE.
 */
export function roundTrips(fills: readonly OwnedFill[], prices: PriceSamples = {}): RoundTrip[] {
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
      const price = series[i]![1];
      for (const o of books.values()) {
        if (o.trip.symbol !== symbol) continue;
        const u = unrealized(o, price);
        if (u.lt(o.mae)) o.mae = u;
        if (u.gt(o.mfe)) o.mfe = u;
      }
    }
    cursor.set(symbol, i);
  };
  for (const { fill: f, strategy, positionSide } of fills) {
    // A sample at a fill's own instant is taken after it: read the samples before it first.
    advance(f.symbol, f.timestampMs);
    const key = `${strategy}\u0000${f.symbol}\u0000${positionSide ?? ''}`;
    const signed = f.side === 'buy' ? f.size : f.size.neg();
    let o = books.get(key);
    let opening = f.size;
    let openingFee = f.fee;
    if (o) {
      const reducing = o.qty.isNegative() !== signed.isNegative();
      if (reducing) {
        const closing = f.size.lt(o.qty.abs()) ? f.size : o.qty.abs();
        const avg = o.cost.div(o.qty.abs(), 18);
        const value = avg.mul(closing);
        o.realized = o.realized.add(o.qty.isNegative() ? value.sub(f.price.mul(closing)) : f.price.mul(closing).sub(value));
        // A flip: the fee is split by size between the closing and the opening part.
        const closingFee = closing.eq(f.size) ? f.fee : f.fee.mul(closing).div(f.size, 18);
        o.fees = o.fees.add(closingFee);
        o.closedSize = o.closedSize.add(closing);
        o.closedValue = o.closedValue.add(f.price.mul(closing));
        o.trip.fills++;
        const remaining = o.qty.abs().sub(closing);
        o.qty = o.qty.isNegative() ? remaining.neg() : remaining;
        o.cost = remaining.isZero() ? Decimal.ZERO : o.cost.sub(value);
        opening = f.size.sub(closing);
        openingFee = f.fee.sub(closingFee);
        if (remaining.isZero()) {
          out.push(finish(o, f.timestampMs));
          books.delete(key);
          o = undefined;
        }
      } else {
        o.qty = o.qty.add(signed);
        o.cost = o.cost.add(f.price.mul(f.size));
        o.openedSize = o.openedSize.add(f.size);
        o.openedValue = o.openedValue.add(f.price.mul(f.size));
        o.fees = o.fees.add(f.fee);
        o.trip.fills++;
        continue;
      }
    }
    if (o || opening.isZero()) continue;
    const value = f.price.mul(opening);
    books.set(key, {
      trip: { strategy, symbol: f.symbol, side: signed.isNegative() ? 'short' : 'long', entryMs: f.timestampMs, entryAt: iso(f.timestampMs), fills: 1 },
      qty: signed.isNegative() ? opening.neg() : opening, cost: value,
      openedSize: opening, openedValue: value, closedSize: Decimal.ZERO, closedValue: Decimal.ZERO,
      realized: Decimal.ZERO, fees: openingFee, mae: Decimal.ZERO, mfe: Decimal.ZERO,
    });
  }
  for (const symbol of Object.keys(prices)) advance(symbol, Number.POSITIVE_INFINITY);
  out.push(...[...books.values()].map((o) => finish(o, null)));
  return out.sort((a, b) => a.entryMs - b.entryMs || (a.exitMs ?? Infinity) - (b.exitMs ?? Infinity));
}

/** Per strategy, of its closed trades: how many, the share won (net of fees, in %) and gross won / gross lost. */
export interface TradeStats {
  trades: number;
  open: number;
  winRatePct: string;
  profitFactor: string;
}

export function tradeStats(trips: readonly RoundTrip[]): TradeStats {
  const closed = trips.filter((t) => t.exitMs !== null);
  const pnls = closed.map((t) => Decimal.from(t.pnl));
  const wins = pnls.filter((p) => p.gt(Decimal.ZERO));
  const won = wins.reduce((a, p) => a.add(p), Decimal.ZERO);
  const lost = pnls.filter((p) => p.isNegative()).reduce((a, p) => a.sub(p), Decimal.ZERO);
  return {
    trades: closed.length,
    open: trips.length - closed.length,
    winRatePct: closed.length === 0 ? '0' : Decimal.fromInt(wins.length * 100).div(Decimal.fromInt(closed.length), 4).toString(),
    profitFactor: lost.isZero() ? (won.isZero() ? '0' : 'inf') : won.div(lost, 4).toString(),
  };
}

/** round-trips.csv's columns. */
export const ROUND_TRIPS_CSV_HEADER = 'strategy,symbol,side,entry_ts,entry_price,exit_ts,exit_price,duration_ms,size,pnl,fees,mae,mfe,fills';

/** A round-trips.csv line (an open trade: exit columns empty). */
export function roundTripCsvLine(t: RoundTrip): string {
  return [t.strategy, t.symbol, t.side, t.entryMs, t.entryPrice, t.exitMs ?? '', t.exitPrice ?? '', t.durationMs ?? '', t.size, t.pnl, t.fees, t.mae, t.mfe, t.fills].join(',');
}
