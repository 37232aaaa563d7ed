// The average-cost book the report's figures share: a signed holding and what it cost, booked one execution at a
// time (a fill that reduces realises against the average; one that flips closes all and opens the rest at its price):
// in BigInt units of a FixedPoint, or in safe integers (SafeFixed) while the amounts fit.
import type { Decimal } from '../domain/decimal.js';
import type { Fill } from '../domain/market.js';
import type { FixedPoint } from './fixed-point.js';
import { add, sub, type BookScale, type SafeFixed } from './safe-fixed.js';

/** A signed quantity (negative: short) and what it cost, in units of a FixedPoint. */
export interface Book {
  qty: bigint;
  cost: bigint;
}

/** The most decimal places of a fill's price, size and fee. */
export const placesOfFill = (f: Fill): number => Math.max(f.price.scale, f.size.scale, f.fee.scale);

/** Books a fill (price, size in units of `fx`) at average cost; returns the PnL it realised (fees apart). */
export function book(fx: FixedPoint, b: Book, side: Fill['side'], price: bigint, size: bigint): bigint {
  const signed = side === 'buy' ? size : -size;
  const reducing = b.qty !== 0n && b.qty < 0n !== signed < 0n;
  if (!reducing) {
    b.qty += signed;
    b.cost += fx.mul(price, size);
    return 0n;
  }
  const held = b.qty < 0n ? -b.qty : b.qty;
  const wanted = signed < 0n ? -signed : signed;
  const closing = wanted < held ? wanted : held;
  const avg = fx.div(b.cost, held, 18);
  const value = fx.mul(avg, closing);
  const pnl = b.qty < 0n ? value - fx.mul(price, closing) : fx.mul(price, closing) - value;
  const remainingQty = held - closing;
  b.cost = remainingQty === 0n ? 0n : b.cost - value;
  b.qty = b.qty < 0n ? -remainingQty : remainingQty;
  const opening = wanted - closing;
  if (opening !== 0n) {
    b.qty = signed < 0n ? -opening : opening;
    b.cost = fx.mul(price, opening);
  }
  return pnl;
}

/**
 * An average-cost book in safe integers (units of a SafeFixed) while its amounts fit; from a fill they did not fit,
 * in BigInt (`big`, units of the matching FixedPoint) until it is flat again.
 */
export interface SafeBook {
  qty: number;
  cost: number;
  big: Book | null;
}

/**
 * book() in safe integers: books a fill (price, size as Decimals) and returns the PnL it realised (fees apart), or NaN
 * when an amount did not fit (the book is left as it was).
 */
export function bookSafe(sf: SafeFixed, b: SafeBook, side: Fill['side'], price: Decimal, size: Decimal): number {
  const wanted = sf.of(size);
  if (wanted !== wanted) return NaN;
  const qty = b.qty;
  const selling = side !== 'buy';
  if (qty === 0 || qty < 0 === selling) {
    const q = add(qty, selling ? -wanted : wanted);
    const c = add(b.cost, sf.product(price, size));
    if (q !== q || c !== c) return NaN;
    b.qty = q;
    b.cost = c;
    return 0;
  }
  const held = qty < 0 ? -qty : qty;
  const closing = wanted < held ? wanted : held;
  const value = sf.averageCost(b.cost, held, closing);
  const closed = sf.times(closing, price);
  const pnl = qty < 0 ? sub(value, closed) : sub(closed, value);
  const opening = wanted - closing;
  const remaining = held - closing;
  let q: number;
  let c: number;
  if (opening !== 0) {
    q = selling ? -opening : opening;
    c = sf.times(opening, price);
  } else {
    q = qty < 0 ? -remaining : remaining;
    c = remaining === 0 ? 0 : sub(b.cost, value);
  }
  if (pnl !== pnl || c !== c) return NaN;
  b.qty = q;
  b.cost = c;
  return pnl;
}

/**
 * What bookFill() booked: `safe`, the realised PnL (fees apart) and the fee in safe units of the scale (`pnl`, `fee`);
 * otherwise in its BigInt units (`pnlBig`, `feeBig`). One object, reused: read it before the next booking.
 */
export interface BookedFill {
  safe: boolean;
  pnl: number;
  fee: number;
  pnlBig: bigint;
  feeBig: bigint;
}

const booked: BookedFill = { safe: true, pnl: 0, fee: 0, pnlBig: 0n, feeBig: 0n };

/**
 * Books a fill into `b` at the scale's units: in safe integers while its amounts fit; once one does not, the book goes
 * to BigInt (and back to safe integers when it is flat again).
 */
export function bookFill(scale: BookScale, b: SafeBook, f: Fill): BookedFill {
  if (b.big === null) {
    const sf = scale.sf;
    const fee = sf.of(f.fee);
    const pnl = fee === fee ? bookSafe(sf, b, f.side, f.price, f.size) : NaN;
    if (pnl === pnl) {
      booked.safe = true;
      booked.pnl = pnl;
      booked.fee = fee;
      return booked;
    }
    b.big = { qty: scale.big(b.qty), cost: scale.big(b.cost) };
  }
  const fx = scale.fx;
  booked.safe = false;
  booked.pnlBig = book(fx, b.big, f.side, fx.of(f.price), fx.of(f.size));
  booked.feeBig = fx.of(f.fee);
  if (b.big.qty === 0n) {
    b.big = null;
    b.qty = 0;
    b.cost = 0;
  }
  return booked;
}

/** After `scale` widened: the book's amounts in its new units (in BigInt from now on when they no longer fit). */
export function widenBook(scale: BookScale, b: SafeBook): void {
  if (b.big) {
    b.big.qty *= scale.bigFactor;
    b.big.cost *= scale.bigFactor;
    return;
  }
  const qty = scale.widened(b.qty);
  const cost = scale.widened(b.cost);
  if (qty === qty && cost === cost) {
    b.qty = qty;
    b.cost = cost;
  } else b.big = { qty: scale.bigBefore(b.qty), cost: scale.bigBefore(b.cost) };
}
