// The average-cost book the report's figures share: a signed holding and what it cost, booked one execution at a
// time (a fill that reduces realises against the average; one that flips closes all and opens the rest at its price).
import type { Fill } from '../domain/market.js';
import type { FixedPoint } from './fixed-point.js';

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
