// Liquidation of the cross futures account (exchange extensions §7.2), once its equity at mark is at or below its
// maintenance margin: every open order and trigger order of the account is canceled; the positions of the contract
// whose tick triggered it close at its estimated liquidation price worked out before the close (on the tick, up
// for a net long); while the account is still liquidating, other contracts' positions close at their own mark.
// Each close is a taker order of the venue's burst_liquidate_long / burst_liquidate_short type, its fee the
// liquidation fee rate of its value. The ledger brackets it with start_liquidate and finish_liquidate; a loss beyond
// the collateral is made good (order_fix_margin_amount). Not modelled: the venue's partial steps ("reducing the
// position size by two tiers each time"), ADL, and the offset of two-sided positions before the closes.
import { Decimal } from '../../domain/decimal.js';
import { futuresSide } from '../../domain/order.js';
import { accountCross, contractLiquidationPrice } from './account-margin.js';
import { hasPosition, priceOf, type Book } from './book.js';
import type { EngineOps } from './engine-ops.js';
import type { SimLiquidation } from './futures-views.js';

/** Liquidates the account; `book` is the contract whose tick (or funding settlement) triggered it. */
export function liquidate(ops: EngineOps, book: Book, record: (liquidation: SimLiquidation) => void): void {
  const { account, ledger } = ops;
  const nowMs = ops.clock.now();
  const symbol = book.inst.symbol;
  account.liquidating = true;
  ledger.record(symbol, 'liquidation-start', 'start_liquidate', Decimal.ZERO, account.total(), Decimal.ZERO, nowMs);
  for (const each of ops.futuresBooks()) {
    for (const order of [...each.open]) ops.finish(each, order, 'canceled');
    ops.changed(each);
  }
  const mark = account.mark(book);
  const estimate = contractLiquidationPrice(account, book);
  closeAll(ops, book, estimate !== null && estimate.gt(Decimal.ZERO) ? estimate : mark, mark, record);
  for (const other of ops.futuresBooks()) {
    if (other === book || !hasPosition(other)) continue;
    if (!accountCross(account).liquidating) break;
    const otherMark = account.mark(other);
    closeAll(ops, other, otherMark, otherMark, record);
  }
  ledger.record(symbol, 'liquidation-finish', 'finish_liquidate', Decimal.ZERO, account.total(), Decimal.ZERO, nowMs);
  const compensation = account.compensate();
  if (!compensation.isZero()) ledger.record(symbol, 'liquidation-compensation', 'order_fix_margin_amount', compensation, account.total(), Decimal.ZERO, nowMs);
  account.liquidating = false;
}

/** Closes both sides of a contract in full at `price` (on the tick), one liquidation order each. */
function closeAll(ops: EngineOps, book: Book, price: Decimal, mark: Decimal, record: (liquidation: SimLiquidation) => void): void {
  const ticks = price.steps(book.inst.tickSize);
  const feeRate = ops.account.options.liquidationFeeRate ?? book.inst.takerFeeRate;
  for (const side of ['long', 'short'] as const) {
    const size = book.positions[side].size;
    if (size.isZero()) continue;
    const steps = ops.account.positionSteps(book, side);
    const order = ops.newOrder(
      book,
      { clientOid: '', side: futuresSide(side, true), kind: 'market', timeInForce: 'ioc', size, positionSide: side, reduceOnly: true },
      null,
      steps,
    );
    order.liquidation = true;
    ops.admit(book, order);
    const pnl = ops.fill(book, order, ticks, steps, true, feeRate) ?? Decimal.ZERO;
    ops.finish(book, order, 'filled');
    record({ symbol: book.inst.symbol, side, atMs: ops.clock.now(), size, price: priceOf(book, ticks), mark, pnl, fee: order.fee, orderId: order.orderId });
  }
  ops.changed(book);
}
