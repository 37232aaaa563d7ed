// Orders that belong to positions rather than to a book: a position's take-profit and stop-loss (F23, moved in
// place by F24, canceled when the side goes flat), closing positions at market (F27), and canceling every normal or
// every trigger order at once (F28).
import type { Decimal } from '../../domain/decimal.js';
import type { PositionSide } from '../../domain/market.js';
import { futuresSide } from '../../domain/order.js';
import type { OrderRequest, TpSlChange, TpSlRequest } from '../client.js';
import { hasLiveClientOid, sizeOf, type Book } from './book.js';
import type { EngineOps } from './engine-ops.js';
import { validateTrigger } from './order-validation.js';
import { isRefusal, refusals, type CancelOutcome, type PlaceOutcome, type Refusal } from './refusals.js';
import type { SimOrder } from './sim-order.js';

/** One position closed by F27: its id, the closing order (null when none was made) and the error text ('' when none). */
export interface PositionCloseOutcome {
  positionId: string;
  ok: boolean;
  orderId: string | null;
  error: string;
}

/** Whether a TP/SL fires on a rise: a long's take-profit and a short's stop-loss. */
function firesUp(role: 'stop-loss' | 'take-profit', side: PositionSide): boolean {
  return (role === 'take-profit') === (side === 'long');
}

/** Whether a trigger order is reached at the market now (its mark, for one that watches the mark). */
export function triggerReached(book: Book, order: SimOrder): boolean {
  const ticks = order.triggerOnMark ? book.mark.markTicks(book.m) : book.m.last;
  return order.triggerUp ? ticks >= order.triggerTicks! : ticks <= order.triggerTicks!;
}

/** A close of the position side once triggered: market without an execute price, else limit at it. */
function closeRequest(clientOid: string, side: PositionSide, size: Decimal, executePrice: Decimal | undefined): OrderRequest {
  return {
    clientOid,
    side: futuresSide(side, true),
    kind: executePrice ? 'limit' : 'market',
    timeInForce: 'gtc',
    size,
    positionSide: side,
    reduceOnly: true,
    ...(executePrice ? { price: executePrice } : {}),
  };
}

/**
 * Places a position's take-profit or stop-loss: a trigger order closing up to `size` of the side (the position's
 * size when it fires, if smaller). Its direction follows its role, not where the price is now: a stop-loss of a
 * long fires when the price is at or below the trigger, a take-profit at or above (the reverse for a short); one
 * placed already reached fires at once. Refused when the side has no position.
 */
export function placeTpSl(ops: EngineOps, req: TpSlRequest): PlaceOutcome {
  const book = ops.futuresBook(req.symbol);
  if (!book) return { ok: false, refusal: refusals.symbol('futures', req.symbol) };
  const orderReq = closeRequest(req.clientOid, req.positionSide, req.size, req.executePrice);
  const checked = validateTrigger(book, orderReq, req.triggerPrice);
  if (isRefusal(checked)) return { ok: false, refusal: checked };
  if (book.positions[req.positionSide].size.isZero())
    return { ok: false, refusal: refusals.failed('futures', `no ${req.positionSide} position to attach a ${req.role} to`) };
  if (hasLiveClientOid(book, req.clientOid)) return { ok: false, refusal: refusals.failed('futures', `duplicate client id ${req.clientOid}`) };
  const order = ops.newOrder(book, orderReq, checked.ticks, checked.steps);
  order.isTrigger = true;
  order.status = 'untriggered';
  order.triggerTicks = checked.trigger;
  order.role = req.role;
  order.triggerUp = firesUp(req.role, req.positionSide);
  ops.admit(book, order);
  if (triggerReached(book, order)) ops.fire(book, order);
  ops.changed(book);
  return { ok: true, orderId: order.orderId, clientOid: order.clientOid };
}

/**
 * Moves an untriggered TP/SL in place (same order id): its trigger, its execute price (absent: market) and, when
 * given, what its trigger watches. One reached after the move fires at once. Unknown (or not a TP/SL): 50005.
 */
export function modifyTpSl(ops: EngineOps, change: TpSlChange): { ok: true } | { ok: false; refusal: Refusal } {
  const order = ops.order(change.orderId);
  const book = ops.futuresBook(change.symbol);
  if (!book || !order || !order.role || order.symbol !== change.symbol || order.status !== 'untriggered')
    return { ok: false, refusal: refusals.notFound('futures') };
  const orderReq = closeRequest(order.clientOid, order.positionSide!, sizeOf(book, order.sizeSteps), change.executePrice);
  const checked = validateTrigger(book, orderReq, change.triggerPrice);
  if (isRefusal(checked)) return { ok: false, refusal: checked };
  order.triggerTicks = checked.trigger;
  order.priceTicks = checked.ticks;
  order.kind = orderReq.kind;
  order.tif = orderReq.kind === 'market' ? 'ioc' : 'gtc';
  if (change.triggerPriceType) order.triggerOnMark = change.triggerPriceType === 'mark';
  order.updatedAtMs = ops.clock.now();
  if (triggerReached(book, order)) ops.fire(book, order);
  ops.changed(book);
  return { ok: true };
}

/** Cancels the untriggered TP/SL orders of a position side (it went flat); the caller rebuilds the book's bounds. */
export function cancelTpSlOf(ops: EngineOps, book: Book, side: PositionSide): void {
  for (const order of [...book.open]) if (order.role && order.status === 'untriggered' && order.positionSide === side) ops.finish(book, order, 'canceled');
}

/**
 * Closes every open position side of a contract, or of all contracts, with a market reduce-only order of its full
 * size (a taker, normal fees); resting orders are left alone (a reduce-only one finding no position left is
 * canceled when it would fill).
 */
export function closePositions(ops: EngineOps, symbol?: string): PositionCloseOutcome[] {
  const books = symbol === undefined ? ops.futuresBooks() : [ops.futuresBook(symbol)].filter((book): book is Book => book !== undefined);
  const out: PositionCloseOutcome[] = [];
  for (const book of books) {
    for (const side of ['long', 'short'] as const) {
      const pos = book.positions[side];
      if (pos.size.isZero()) continue;
      const positionId = pos.positionId;
      const order = ops.newOrder(book, closeRequest('', side, pos.size, undefined), null, ops.account.positionSteps(book, side));
      ops.admit(book, order);
      ops.takeLiquidity(book, order);
      out.push(
        order.filledSteps > 0
          ? { positionId, ok: true, orderId: order.orderId, error: '' }
          : { positionId, ok: false, orderId: null, error: 'no liquidity to close the position' },
      );
    }
    ops.changed(book);
  }
  return out;
}

/** Cancels every open normal order (`normal`) or every untriggered trigger order, TP/SL included (`plan`), of a contract or of all; unknown contract: none. */
export function cancelAllOrders(ops: EngineOps, kind: 'normal' | 'plan', symbol?: string): CancelOutcome[] {
  const books = symbol === undefined ? ops.futuresBooks() : [ops.futuresBook(symbol)].filter((book): book is Book => book !== undefined);
  const out: CancelOutcome[] = [];
  for (const book of books) {
    for (const order of [...book.open]) {
      // A fired trigger order resting at its limit is a normal order now.
      const hit = kind === 'plan' ? order.isTrigger && order.status === 'untriggered' : order.status === 'open' || order.status === 'pending';
      if (!hit) continue;
      ops.finish(book, order, 'canceled');
      out.push({ ok: true, orderId: order.orderId, clientOid: order.clientOid });
    }
    ops.changed(book);
  }
  return out;
}
