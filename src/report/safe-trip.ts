// The trade list's books in safe integers (round-trips.ts's reduce() and finish() while the amounts fit): a trip's
// amounts as counts of a SafeFixed's units, and a trip once final kept as those amounts, its texts written when
// asked (round-trips.csv's line straight into a file's buffer, a RoundTrip for the few kept as objects).
import type { Decimal } from '../domain/decimal.js';
import { putByte, putInt, putText, textBytes } from './byte-text.js';
import { isoTime } from './iso-time.js';
import type { Open, RoundTrip } from './round-trips.js';
import { add, mulDiv, P10, sub, type SafeFixed } from './safe-fixed.js';

/** A trade still open, its amounts in safe integers (units of a SafeFixed): Open's fields as numbers. */
export type SafeOpen = { trip: Open['trip'] } & { [K in Exclude<keyof Open, 'trip'>]: number };

/**
 * reduce() in safe integers (size, fee and the amounts in units of `sf`; the price a Decimal): returns the fee's
 * share of the part closed, or NaN when an amount did not fit (the trip is left as it was).
 */
export function reduceSafe(sf: SafeFixed, o: SafeOpen, size: number, price: Decimal, fee: number): number {
  const qty = o.qty;
  const held = qty < 0 ? -qty : qty;
  const closing = size < held ? size : held;
  const value = sf.averageCost(o.cost, held, closing);
  const closedValue = sf.times(closing, price);
  const realized = add(o.realized, qty < 0 ? sub(value, closedValue) : sub(closedValue, value));
  const closingFee = closing === size ? fee : mulDiv(fee, closing, size);
  const fees = add(o.fees, closingFee);
  const closedSize = add(o.closedSize, closing);
  const closedValues = add(o.closedValue, closedValue);
  const remaining = held - closing;
  const cost = remaining === 0 ? 0 : sub(o.cost, value);
  if (Number.isNaN(realized + fees + closedSize + closedValues + cost)) return NaN;
  o.realized = realized;
  o.fees = fees;
  o.closedSize = closedSize;
  o.closedValue = closedValues;
  o.trip.fills++;
  o.qty = qty < 0 ? -remaining : remaining;
  o.cost = cost;
  return closingFee;
}

/** The unrealised PnL of a holding in safe integers at `price` (NaN: it does not fit). */
export const unrealizedSafe = (sf: SafeFixed, o: SafeOpen, price: Decimal): number =>
  o.qty < 0 ? sub(o.cost, sf.times(-o.qty, price)) : sub(sf.times(o.qty, price), o.cost);

/** The bytes a number of round-trips.csv takes at most (a safe integer, or an amount or a price as text). */
const NUMBER_BYTES = 42;

/** A trip once final (closed at `exitMs`, or open at the end: null), its figures as its book left them. */
export class SafeTrip {
  readonly strategy: string;
  readonly entryMs: number;
  private text: RoundTrip | undefined;

  constructor(
    private readonly sf: SafeFixed,
    /** The book's amounts (not changed any more). */
    private readonly o: SafeOpen,
    readonly exitMs: number | null,
    /** Realised less fees. */
    private readonly pnl: number,
  ) {
    this.strategy = o.trip.strategy;
    this.entryMs = o.trip.entryMs;
  }

  /** The trip with its texts, as finish() gives it. */
  roundTrip(): RoundTrip {
    if (this.text) return this.text;
    const { sf, o, exitMs } = this;
    const t = o.trip;
    const closed = exitMs !== null;
    return (this.text = {
      strategy: t.strategy,
      symbol: t.symbol,
      side: t.side,
      entryMs: t.entryMs,
      entryAt: isoTime(t.entryMs),
      fills: t.fills,
      entryPrice: sf.ratioText(o.openedValue, o.openedSize, 8),
      exitMs,
      exitAt: closed ? isoTime(exitMs) : null,
      exitPrice: o.closedSize === 0 ? null : sf.ratioText(o.closedValue, o.closedSize, 8),
      durationMs: closed ? exitMs - t.entryMs : null,
      size: sf.text(o.openedSize),
      pnl: sf.text(this.pnl, 8),
      fees: sf.text(o.fees, 8),
      mae: sf.text(o.mae, 8),
      mfe: sf.text(o.mfe, 8),
    });
  }

  /** The PnL as the list writes it (rounded half-up at 8 places), in units of 10^-8. */
  pnlUnits(): number | bigint {
    const s = this.sf.scale;
    const pnl = this.pnl;
    if (s <= 8) {
      const x = pnl * P10[8 - s]!;
      return Number.isSafeInteger(x) ? x : BigInt(pnl) * 10n ** BigInt(8 - s);
    }
    const u = P10[s - 8]!;
    const m = pnl < 0 ? -pnl : pnl;
    const r = m % u;
    const q = (m - r) / u + (r * 2 >= u ? 1 : 0);
    return pnl < 0 ? -q : q;
  }

  /** The most bytes its round-trips.csv line takes. */
  csvBytes(): number {
    return textBytes(this.o.trip.strategy) + textBytes(this.o.trip.symbol) + 14 * NUMBER_BYTES;
  }

  /** Its round-trips.csv line (roundTripCsvLine's) and the newline, into `buf` at `at`; the offset after it. */
  putCsv(buf: Buffer, at: number): number {
    const { sf, o, exitMs } = this;
    const t = o.trip;
    at = putByte(buf, putText(buf, at, t.strategy), 44);
    at = putByte(buf, putText(buf, at, t.symbol), 44);
    at = putByte(buf, putText(buf, at, t.side), 44);
    at = putByte(buf, putInt(buf, at, t.entryMs), 44);
    at = putByte(buf, sf.putRatio(buf, at, o.openedValue, o.openedSize, 8), 44);
    if (exitMs !== null) at = putInt(buf, at, exitMs);
    at = putByte(buf, at, 44);
    if (o.closedSize !== 0) at = sf.putRatio(buf, at, o.closedValue, o.closedSize, 8);
    at = putByte(buf, at, 44);
    if (exitMs !== null) at = putInt(buf, at, exitMs - t.entryMs);
    at = putByte(buf, at, 44);
    at = putByte(buf, sf.put(buf, at, o.openedSize), 44);
    at = putByte(buf, sf.put(buf, at, this.pnl, 8), 44);
    at = putByte(buf, sf.put(buf, at, o.fees, 8), 44);
    at = putByte(buf, sf.put(buf, at, o.mae, 8), 44);
    at = putByte(buf, sf.put(buf, at, o.mfe, 8), 44);
    return putByte(buf, putInt(buf, at, t.fills), 10);
  }
}

/** finish() in safe integers; null when an amount did not fit. */
export function finishSafe(sf: SafeFixed, o: SafeOpen, exitMs: number | null): SafeTrip | null {
  const pnl = sub(o.realized, o.fees);
  return pnl === pnl ? new SafeTrip(sf, o, exitMs, pnl) : null;
}

/** A trip as the books hand it on: with its texts, or as a SafeTrip. */
export type Trip = RoundTrip | SafeTrip;

export const roundTripOf = (t: Trip): RoundTrip => (t instanceof SafeTrip ? t.roundTrip() : t);
