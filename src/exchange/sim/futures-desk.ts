// The futures side of the engine's ticks and fills: each watched tick of a contract takes its mark, settles any
// funding due, and (after matching) checks the cross account for liquidation; each futures fill is booked in the
// ledger, and a side gone flat loses its TP/SL orders. A tick of a contract with no position, no mark trigger and
// no settlement due costs the engine one comparison (Book.watchFromMs) and never reaches here.
import { Decimal } from '../../domain/decimal.js';
import { accountCross, MarginWatch } from './account-margin.js';
import { hasPosition, priceOf, rewatch, type Book } from './book.js';
import type { EngineOps } from './engine-ops.js';
import type { FundingSchedule, RecordedFunding } from './funding-schedule.js';
import type { SimLiquidation } from './futures-views.js';
import { liquidate } from './liquidation.js';
import { cancelTpSlOf } from './position-orders.js';
import type { SimOrder } from './sim-order.js';

/** The futures side of the engine's ticks and fills (see the header). */
export class FuturesDesk {
  private readonly watch: MarginWatch;
  private readonly liquidationLog: SimLiquidation[] = [];

  constructor(
    private readonly ops: EngineOps,
    private readonly funding: FundingSchedule,
  ) {
    this.watch = new MarginWatch(ops.account);
    const nowMs = ops.clock.now();
    for (const book of ops.futuresBooks()) {
      book.nextFundingMs = funding.nextSettlementMs(book.inst.symbol, nowMs);
      rewatch(book);
    }
  }

  /** Before matching, on a watched tick: the contract's mark, then any funding settlement due. */
  beforeMatch(book: Book): void {
    book.markTicks = book.mark.markTicks(book.m);
    if (book.m.ts >= book.nextFundingMs) this.settleFunding(book);
  }

  /** After matching, on a watched tick: a contract holding a position checks the account for liquidation. */
  afterMatch(book: Book): void {
    if (!hasPosition(book) || this.watch.clearlySafe()) return;
    if (accountCross(this.ops.account).liquidating) liquidate(this.ops, book, (l) => this.liquidationLog.push(l));
  }

  /**
   * Settles every settlement due by the tick, each once, in order, all at the current mark (a gap that skipped
   * several settles each of them now). The positions open at the tick pay or receive: one opened after the
   * settlement time but before the tick that settles it is charged, one closed in between is not (between two
   * ticks the simulator knows no price). Fills of this very tick come after it (it runs before matching).
   */
  private settleFunding(book: Book): void {
    const symbol = book.inst.symbol;
    const nowMs = book.m.ts;
    if (hasPosition(book)) {
      const { account, ledger } = this.ops;
      const mark = priceOf(book, book.markTicks);
      for (let t = book.nextFundingMs; t <= nowMs; t = this.funding.nextSettlementMs(symbol, t)) {
        for (const charge of account.settleFunding(book, this.funding.rate(symbol, t), mark, nowMs)) {
          ledger.record(symbol, 'funding', 'position_funding', charge.amount, charge.balance, Decimal.ZERO, nowMs);
        }
      }
    }
    book.nextFundingMs = this.funding.nextSettlementMs(symbol, nowMs);
    this.ops.changed(book);
  }

  /** Books a futures fill (the collateral after it given) and cancels the TP/SL of a side it left flat. */
  afterFill(book: Book, order: SimOrder, pnl: Decimal | undefined, fee: Decimal, nowMs: number): void {
    this.ops.ledger.recordFill(book.inst.symbol, order, pnl, fee, this.ops.account.total(), nowMs);
    if (order.reduceOnly && book.positions[order.positionSide!].size.isZero()) cancelTpSlOf(this.ops, book, order.positionSide!);
  }

  /** Recorded funding of a contract (a replay): its settlements and rates from now on follow them. */
  setFundingHistory(book: Book, history: readonly RecordedFunding[]): void {
    this.funding.setHistory(book.inst.symbol, history);
    book.nextFundingMs = this.funding.nextSettlementMs(book.inst.symbol, this.ops.clock.now());
    rewatch(book);
  }

  /** Liquidations so far, oldest first. */
  liquidations(): SimLiquidation[] {
    return [...this.liquidationLog];
  }
}
