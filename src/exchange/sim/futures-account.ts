// The simulator's futures account: USDT collateral shared by every contract (cross, the venue's SHARED margin;
// isolated margin is not modelled), the margin that open positions and opening orders hold against collateral plus
// unrealised PnL at mark, the checks a new or firing order must pass, and what moves collateral: fills into
// positions with realised PnL, funding settlements, a liquidation loss compensated. Position ids and the lifetime
// figures of each position live here too.
import { Decimal } from '../../domain/decimal.js';
import { unrealizedPnl } from '../../domain/margin.js';
import type { PositionSide } from '../../domain/market.js';
import { SWEEP_LEVELS, priceOf, sizeOf, type Book, type PositionState } from './book.js';
import { DEFAULT_SIM_FUTURES, type SimFuturesOptions } from './futures-views.js';
import { refusals, type Refusal } from './refusals.js';
import type { SimOrder } from './sim-order.js';

/** Precision kept when a position's open value is reduced pro rata (the last close absorbs the remainder). */
export const VALUE_SCALE = 18;

/** One position side's share of a funding settlement: the change of collateral (negative when paid) and the collateral after it. */
export interface FundingCharge {
  side: PositionSide;
  positionId: string;
  amount: Decimal;
  balance: Decimal;
}

/** The inputs of available(): collateral, each held side at its contract's mark, each opening order's remaining steps at its worst price. */
interface MarginInputs {
  collateral: Decimal;
  positions: Array<{ book: Book; side: PositionSide; size: Decimal; openValue: Decimal; markTicks: number }>;
  orders: Array<{ book: Book; worstTicks: number; steps: number }>;
}

/** The worst price an opening order may fill at: its limit, or a market buy's deepest sweep level, a market sell's bid. */
function worstTicksOf(book: Book, order: SimOrder): number {
  return order.priceTicks ?? (order.side === 'buy' ? book.m.ask + SWEEP_LEVELS - 1 : book.m.bid);
}

/** The cross futures account (see the header). */
export class FuturesAccount {
  private collateral: Decimal;
  readonly leverage: Decimal;
  /** Funding over the account's life (change of collateral), trading fees and liquidation fees paid. */
  cumFunding = Decimal.ZERO;
  cumFees = Decimal.ZERO;
  cumLiquidationFees = Decimal.ZERO;
  /** True while a liquidation runs. */
  liquidating = false;
  /** Moves on every change of collateral or positions (what depends on them may keep what it worked out while it holds). */
  version = 0;
  private nextPositionId = 500000000000000001n;

  constructor(
    collateral: string,
    leverage: number,
    /** The futures books, in the engine's order: what holds margin. */
    readonly books: readonly Book[],
    readonly options: SimFuturesOptions = DEFAULT_SIM_FUTURES,
  ) {
    this.collateral = Decimal.from(collateral);
    this.leverage = Decimal.fromInt(leverage);
  }

  /** Collateral (USDT): the initial amount, less fees, plus realised PnL and funding received, less funding paid. */
  total(): Decimal {
    return this.collateral;
  }

  /** The contract's mark price now. */
  mark(book: Book): Decimal {
    return priceOf(book, book.mark.markTicks(book.m));
  }

  /** Unrealised PnL of a position side at `mark` (zero when flat). */
  unrealized(book: Book, side: PositionSide, mark: Decimal = this.mark(book)): Decimal {
    const pos = book.positions[side];
    return pos.size.isZero() ? Decimal.ZERO : unrealizedPnl({ side, size: pos.size, openValue: pos.openValue, mark });
  }

  /** Margin a position side holds: its open value / leverage. */
  positionMargin(pos: PositionState): Decimal {
    return pos.openValue.div(this.leverage, VALUE_SCALE, 'up');
  }

  /** Margin an opening order holds for `steps` of its size: notional at its worst price / leverage, plus the taker fee. */
  openMargin(book: Book, order: SimOrder, steps: number): Decimal {
    return this.marginAt(book, worstTicksOf(book, order), steps);
  }

  private marginAt(book: Book, worstTicks: number, steps: number): Decimal {
    const notional = priceOf(book, worstTicks).mul(sizeOf(book, steps));
    return notional.div(this.leverage, VALUE_SCALE, 'up').add(notional.mul(book.inst.takerFeeRate));
  }

  /** Collateral plus unrealised PnL at mark, less the margin of open positions and of open opening orders (`except` left out). */
  available(except?: SimOrder): Decimal {
    return this.holdsMargin() ? this.freeOf(this.marginInputs(except)) : this.collateral;
  }

  /**
   * available() as it is now: flat with no opening order, the collateral; otherwise worked out when first read, its
   * inputs (collateral, positions, marks, the orders' worst prices) taken now. A polled balance that is seldom read
   * costs no decimal arithmetic.
   */
  availableLater(): Decimal | (() => Decimal) {
    if (!this.holdsMargin()) return this.collateral;
    const inputs = this.marginInputs();
    let free: Decimal | undefined;
    return () => (free ??= this.freeOf(inputs));
  }

  /** Whether any position or opening order holds margin (or an open order may: reduce-only ones are skipped later). */
  private holdsMargin(): boolean {
    for (const book of this.books) if (book.open.length !== 0 || !book.positions.long.size.isZero() || !book.positions.short.size.isZero()) return true;
    return false;
  }

  /** What available() counts, taken from the state now (integers and the position's own decimals, no arithmetic). */
  private marginInputs(except?: SimOrder): MarginInputs {
    const positions: MarginInputs['positions'] = [];
    const orders: MarginInputs['orders'] = [];
    for (const book of this.books) {
      let markTicks: number | undefined;
      for (const side of ['long', 'short'] as const) {
        const pos = book.positions[side];
        if (pos.size.isZero()) continue;
        markTicks ??= book.mark.markTicks(book.m);
        positions.push({ book, side, size: pos.size, openValue: pos.openValue, markTicks });
      }
      for (const order of book.open) {
        if (order === except || order.reduceOnly || order.status !== 'open') continue;
        orders.push({ book, worstTicks: worstTicksOf(book, order), steps: order.sizeSteps - order.filledSteps });
      }
    }
    return { collateral: this.collateral, positions, orders };
  }

  private freeOf(inputs: MarginInputs): Decimal {
    let free = inputs.collateral;
    for (const p of inputs.positions) {
      const unrealized = unrealizedPnl({ side: p.side, size: p.size, openValue: p.openValue, mark: priceOf(p.book, p.markTicks) });
      free = free.add(unrealized).sub(p.openValue.div(this.leverage, VALUE_SCALE, 'up'));
    }
    for (const o of inputs.orders) free = free.sub(this.marginAt(o.book, o.worstTicks, o.steps));
    return free;
  }

  /** Whether closing `steps` more, on top of the open closing orders of that side (`except` left out), exceeds the position. */
  closeExceedsPosition(book: Book, side: PositionSide, steps: number, except?: SimOrder): boolean {
    const pos = book.positions[side];
    let pending = 0;
    for (const order of book.open)
      if (order !== except && order.reduceOnly && order.positionSide === side && order.status === 'open') pending += order.sizeSteps - order.filledSteps;
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
    if (max && book.positions[order.positionSide!].size.add(sizeOf(book, order.sizeSteps)).gt(max))
      return refusals.futuresParam('size: above the maximum position size');
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

  /** Size steps of a position side (what a reduce-only order may still close). */
  positionSteps(book: Book, side: PositionSide): number {
    return book.positions[side].size.steps(book.inst.stepSize);
  }

  /**
   * Settles a futures fill; returns the realised PnL of a close (undefined for an open). A side opening from flat
   * starts a new position: a new id, its lifetime figures from zero. A liquidation's fee counts as a liquidation fee.
   */
  settle(book: Book, order: SimOrder, size: Decimal, amount: Decimal, fee: Decimal, nowMs: number): Decimal | undefined {
    this.version++;
    const pos = book.positions[order.positionSide!];
    this.collateral = this.collateral.sub(fee);
    if (order.liquidation) {
      this.cumLiquidationFees = this.cumLiquidationFees.add(fee);
      pos.cumLiquidateFee = pos.cumLiquidateFee.add(fee);
    } else this.cumFees = this.cumFees.add(fee);
    pos.updatedAtMs = nowMs;
    if (!order.reduceOnly) {
      if (pos.size.isZero()) this.startPosition(pos, nowMs);
      pos.size = pos.size.add(size);
      pos.openValue = pos.openValue.add(amount);
      pos.openFee = pos.openFee.add(fee);
      pos.cumOpenSize = pos.cumOpenSize.add(size);
      pos.cumOpenValue = pos.cumOpenValue.add(amount);
      pos.cumOpenFee = pos.cumOpenFee.add(fee);
      return undefined;
    }
    // Close: the open value leaves pro rata; a full close takes what is left, so totals stay exact.
    const reduced = size.eq(pos.size) ? pos.openValue : pos.openValue.mul(size).div(pos.size, VALUE_SCALE, 'half-up');
    const pnl = order.positionSide === 'long' ? amount.sub(reduced) : reduced.sub(amount);
    pos.size = pos.size.sub(size);
    pos.openValue = pos.openValue.sub(reduced);
    pos.realized = pos.realized.add(pnl);
    pos.cumCloseSize = pos.cumCloseSize.add(size);
    pos.cumCloseValue = pos.cumCloseValue.add(amount);
    if (!order.liquidation) pos.cumCloseFee = pos.cumCloseFee.add(fee);
    this.collateral = this.collateral.add(pnl);
    if (pos.size.isZero()) {
      pos.openValue = Decimal.ZERO;
      pos.openFee = Decimal.ZERO;
    }
    return pnl;
  }

  private startPosition(pos: PositionState, nowMs: number): void {
    const zero = Decimal.ZERO;
    pos.positionId = (this.nextPositionId++).toString();
    pos.createdAtMs = nowMs;
    pos.fundingFee = pos.cumFundingFee = pos.cumLiquidateFee = zero;
    pos.cumOpenSize = pos.cumOpenValue = pos.cumOpenFee = pos.cumCloseSize = pos.cumCloseValue = pos.cumCloseFee = zero;
  }

  /**
   * Settles funding on every open side of a contract at `mark`: rate × |size| × mark, exact; with a positive rate
   * a long pays and a short receives, with a negative rate the reverse. Charged in full: the venue deducts funding
   * "up to the point where your margin ratio reaches the maintenance margin rate", which is not modelled (a charge
   * may push the account into liquidation, which the engine checks right after).
   */
  settleFunding(book: Book, rate: Decimal, mark: Decimal, nowMs: number): FundingCharge[] {
    const charges: FundingCharge[] = [];
    for (const side of ['long', 'short'] as const) {
      const pos = book.positions[side];
      if (pos.size.isZero()) continue;
      const paid = rate.mul(pos.size).mul(mark);
      const amount = side === 'long' ? paid.neg() : paid;
      this.collateral = this.collateral.add(amount);
      this.cumFunding = this.cumFunding.add(amount);
      pos.fundingFee = amount;
      pos.cumFundingFee = pos.cumFundingFee.add(amount);
      pos.updatedAtMs = nowMs;
      charges.push({ side, positionId: pos.positionId, amount, balance: this.collateral });
    }
    if (charges.length) this.version++;
    return charges;
  }

  /** Brings collateral left below zero by a liquidation back to zero (the venue's compensation); returns what was added. */
  compensate(): Decimal {
    if (!this.collateral.isNegative()) return Decimal.ZERO;
    const amount = this.collateral.neg();
    this.collateral = Decimal.ZERO;
    this.version++;
    return amount;
  }
}
