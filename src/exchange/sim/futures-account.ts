// The simulator's futures account: USDT collateral shared by every contract (SHARED margin), the margin that
// open positions and opening orders hold, the checks a new or firing order must pass, and fill settlement into
// positions with realised PnL. Unrealised PnL is never counted; funding is not simulated.
import { Decimal } from '../../domain/decimal.js';
import type { Position, PositionSide } from '../../domain/market.js';
import { SWEEP_LEVELS, priceOf, sizeOf, type Book } from './book.js';
import { refusals, type Refusal } from './refusals.js';
import type { SimOrder } from './sim-order.js';

/** Precision kept when a position's open value is reduced pro rata (the last close absorbs the remainder). */
const VALUE_SCALE = 18;

export class FuturesAccount {
  private collateral: Decimal;
  readonly leverage: Decimal;

  constructor(
    collateral: string,
    leverage: number,
    /** The futures books, in the engine's order: what holds margin. */
    private readonly books: readonly Book[],
  ) {
    this.collateral = Decimal.from(collateral);
    this.leverage = Decimal.fromInt(leverage);
  }

  /** Collateral (USDT): the initial amount, less fees, plus realised PnL. */
  total(): Decimal {
    return this.collateral;
  }

  /** Margin an opening order holds for `steps` of its size: notional at its worst price / leverage, plus the taker fee. */
  openMargin(book: Book, order: SimOrder, steps: number): Decimal {
    const worstTicks = order.priceTicks ?? (order.side === 'buy' ? book.m.ask + SWEEP_LEVELS - 1 : book.m.bid);
    const notional = priceOf(book, worstTicks).mul(sizeOf(book, steps));
    return notional.div(this.leverage, VALUE_SCALE, 'up').add(notional.mul(book.inst.takerFeeRate));
  }

  /** Collateral less the margin of open positions and of open opening orders (`except` left out). */
  available(except?: SimOrder): Decimal {
    let used = Decimal.ZERO;
    for (const book of this.books) {
      for (const pos of [book.positions.long, book.positions.short]) if (!pos.size.isZero()) used = used.add(pos.openValue.div(this.leverage, VALUE_SCALE, 'up'));
      for (const order of book.open) {
        if (order === except || order.reduceOnly || order.status !== 'open') continue;
        used = used.add(this.openMargin(book, order, order.sizeSteps - order.filledSteps));
      }
    }
    return this.collateral.sub(used);
  }

  /** Whether closing `steps` more, on top of the open closing orders of that side (`except` left out), exceeds the position. */
  closeExceedsPosition(book: Book, side: PositionSide, steps: number, except?: SimOrder): boolean {
    const pos = book.positions[side];
    let pending = 0;
    for (const order of book.open) if (order !== except && order.reduceOnly && order.positionSide === side && order.status === 'open') pending += order.sizeSteps - order.filledSteps;
    return sizeOf(book, steps + pending).gt(pos.size);
  }

  /** Checks a new order: a close must fit the position; an open needs its margin and must fit the maximum position size. */
  check(book: Book, order: SimOrder): Refusal | undefined {
    if (order.reduceOnly) {
      if (this.closeExceedsPosition(book, order.positionSide!, order.sizeSteps)) return refusals.failed('futures', 'close size exceeds the position');
      return undefined;
    }
    const need = this.openMargin(book, order, order.sizeSteps);
    const available = this.available();
    if (available.lt(need)) return refusals.failed('futures', `insufficient balance: margin available ${available.toString()}, needs ${need.toString()}`);
    const max = book.inst.maxPositionSize;
    if (max && book.positions[order.positionSide!].size.add(sizeOf(book, order.sizeSteps)).gt(max)) return refusals.futuresParam('size: above the maximum position size');
    return undefined;
  }

  /** Whether a fired trigger order must be canceled: margin (or the position, for a close) is checked when it goes live. */
  refusesFiring(book: Book, order: SimOrder): boolean {
    if (!order.reduceOnly) {
      const need = this.openMargin(book, order, order.sizeSteps);
      return this.available(order).lt(need);
    }
    return this.closeExceedsPosition(book, order.positionSide!, order.sizeSteps, order);
  }

  /** Settles a futures fill; returns the realised PnL of a close (undefined for an open). */
  settle(book: Book, order: SimOrder, size: Decimal, amount: Decimal, fee: Decimal, nowMs: number): Decimal | undefined {
    const pos = book.positions[order.positionSide!];
    this.collateral = this.collateral.sub(fee);
    pos.updatedAtMs = nowMs;
    if (!order.reduceOnly) {
      pos.size = pos.size.add(size);
      pos.openValue = pos.openValue.add(amount);
      pos.openFee = pos.openFee.add(fee);
      return undefined;
    }
    // Close: the open value leaves pro rata; a full close takes what is left, so totals stay exact.
    const reduced = size.eq(pos.size) ? pos.openValue : pos.openValue.mul(size).div(pos.size, VALUE_SCALE, 'half-up');
    const pnl = order.positionSide === 'long' ? amount.sub(reduced) : reduced.sub(amount);
    pos.size = pos.size.sub(size);
    pos.openValue = pos.openValue.sub(reduced);
    pos.realized = pos.realized.add(pnl);
    this.collateral = this.collateral.add(pnl);
    if (pos.size.isZero()) {
      pos.openValue = Decimal.ZERO;
      pos.openFee = Decimal.ZERO;
    }
    return pnl;
  }

  /** The book's non-empty position sides, long first. */
  positions(book: Book): Position[] {
    const out: Position[] = [];
    for (const side of ['long', 'short'] as const) {
      const pos = book.positions[side];
      if (pos.size.isZero()) continue;
      out.push({
        symbol: book.inst.symbol, side, size: pos.size, openValue: pos.openValue, entryPrice: pos.openValue.div(pos.size, 12), leverage: this.leverage,
        marginMode: 'SHARED', isolatedMargin: Decimal.ZERO, openFee: pos.openFee, fundingFee: Decimal.ZERO, updatedAtMs: pos.updatedAtMs,
      });
    }
    return out;
  }
}
