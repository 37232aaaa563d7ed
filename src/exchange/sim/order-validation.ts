// The venue's checks on a new order, against its instrument and the market: client id, size, price and the
// price band. Pure: nothing is reserved or placed here.
import { Decimal } from '../../domain/decimal.js';
import type { OrderRequest } from '../client.js';
import { priceOf, type Book } from './book.js';
import { isRefusal, refusals, type Refusal } from './refusals.js';

/** An order that passed: limit price in ticks (null for market) and size in steps. */
export interface CheckedOrder {
  ticks: number | null;
  steps: number;
}

/** Validates an order against the instrument and the market; returns its price in ticks and size in steps. */
export function validateOrder(book: Book, req: OrderRequest): CheckedOrder | Refusal {
  const inst = book.inst;
  const surface = inst.surface;
  if (!/^[A-Za-z0-9_]{1,40}$/.test(req.clientOid)) return refusals.param(surface, 'clientOid');
  if (req.size.isNegative() || req.size.isZero()) return refusals.param(surface, 'size');
  if (!req.size.isMultipleOf(inst.stepSize)) return refusals.param(surface, 'size');
  if (req.size.lt(inst.minSize)) return surface === 'spot' ? refusals.spotMin() : refusals.futuresParam('size: below the minimum order size');
  if (inst.maxSize && req.size.gt(inst.maxSize)) return surface === 'spot' ? refusals.spotMax() : refusals.futuresParam('size: above the maximum order size');
  const steps = req.size.steps(inst.stepSize);
  if (req.kind === 'market') return { ticks: null, steps };
  const price = req.price;
  if (!price || price.isNegative() || price.isZero() || !price.isMultipleOf(inst.tickSize)) return refusals.param(surface, 'price');
  const ticks = price.steps(inst.tickSize);
  // Price band around the market: buys at most (1 + ratio) above, sells at least (1 - ratio) below.
  const ref = priceOf(book, book.m.last);
  const ratio = req.side === 'buy' ? inst.buyLimitPriceRatio : inst.sellLimitPriceRatio;
  if (ratio) {
    const hi = ref.mul(Decimal.fromInt(1).add(ratio));
    const lo = ref.mul(Decimal.fromInt(1).sub(ratio));
    if (price.gt(hi) || price.lt(lo)) return surface === 'spot' ? refusals.spotBand() : refusals.futuresParam('price: outside the allowed range');
  }
  return { ticks, steps };
}

/** A trigger order's checks: its execution price is held against the trigger price, not against today's market. */
export function validateTrigger(book: Book, req: OrderRequest, triggerPrice: Decimal): (CheckedOrder & { trigger: number }) | Refusal {
  if (triggerPrice.isNegative() || triggerPrice.isZero() || !triggerPrice.isMultipleOf(book.inst.tickSize)) return refusals.futuresParam('trigger_price');
  const trigger = triggerPrice.steps(book.inst.tickSize);
  const saved = book.m.last;
  book.m.last = trigger;
  try {
    const checked = validateOrder(book, req);
    return isRefusal(checked) ? checked : Object.assign({}, checked, { trigger });
  } finally {
    book.m.last = saved;
  }
}
