// The futures account's ledger (F30 bills): every change of collateral as one entry, with the venue's
// `businessType`. Fills: one entry each, `open` (position_open_long|short, amount −fee) or `close`
// (position_close_long|short, amount realised PnL − fee); the venue's list has no type of its own for a trading
// fee, its wording puts the fee in the open and close types. Funding: position_funding per position side.
// Liquidation: start_liquidate and finish_liquidate (amount 0) around its closes (close, amount the realised PnL)
// and their fees (order_liquidate_fee_income, amount −fee), and order_fix_margin_amount when a loss beyond the
// collateral is made good. So the amounts sum to the change of collateral. Bounded per symbol like order history.
import { Decimal } from '../../domain/decimal.js';
import type { LedgerEntry, LedgerKind } from '../../domain/market.js';
import type { LedgerQuery } from '../client.js';
import type { SimLedgerPage } from './futures-views.js';
import type { SimOrder } from './sim-order.js';

/** F30 `limit`: default and most. */
export const LEDGER_DEFAULT_LIMIT = 20;
export const LEDGER_MAX_LIMIT = 100;

/** The account's bills, by symbol; bill ids digit for digit from 900000000000000001. */
export class FuturesLedger {
  private nextBillId = 900000000000000001n;
  /** Entries by symbol, oldest first. */
  private readonly bySymbol = new Map<string, LedgerEntry[]>();

  /** `retain`: entries kept per symbol (the oldest dropped beyond it); unbounded by default. */
  constructor(private readonly retain = Number.POSITIVE_INFINITY) {}

  /** Adds an entry; `balance` is the collateral after it. */
  record(symbol: string, kind: LedgerKind, rawKind: string, amount: Decimal, balance: Decimal, fee: Decimal, timestampMs: number): LedgerEntry {
    const entry: LedgerEntry = { billId: (this.nextBillId++).toString(), asset: 'USDT', symbol, kind, rawKind, amount, balance, fee, timestampMs };
    let list = this.bySymbol.get(symbol);
    if (!list) this.bySymbol.set(symbol, (list = []));
    list.push(entry);
    if (list.length > this.retain * 2) list.splice(0, list.length - this.retain);
    return entry;
  }

  /** The entries of one futures fill, `balance` the collateral after it (see the header for the kinds). */
  recordFill(
    symbol: string,
    order: Pick<SimOrder, 'positionSide' | 'reduceOnly' | 'liquidation'>,
    pnl: Decimal | undefined,
    fee: Decimal,
    balance: Decimal,
    timestampMs: number,
  ): void {
    const short = order.positionSide === 'short';
    const close = short ? 'position_close_short' : 'position_close_long';
    if (order.liquidation) {
      const realized = pnl ?? Decimal.ZERO;
      this.record(symbol, 'close', close, realized, balance.add(fee), Decimal.ZERO, timestampMs);
      this.record(symbol, 'fee', 'order_liquidate_fee_income', fee.neg(), balance, fee, timestampMs);
    } else if (!order.reduceOnly) this.record(symbol, 'open', short ? 'position_open_short' : 'position_open_long', fee.neg(), balance, fee, timestampMs);
    else this.record(symbol, 'close', close, (pnl ?? Decimal.ZERO).sub(fee), balance, fee, timestampMs);
  }

  /** Every entry kept, oldest first (accounting checks). */
  entries(symbol?: string): LedgerEntry[] {
    const lists = symbol ? [this.bySymbol.get(symbol) ?? []] : [...this.bySymbol.values()];
    return lists.flat().sort((a, b) => compareBillIds(a.billId, b.billId));
  }

  /** One window, newest first: the entries matching the query, `limit` of them (1–100, default 20), and whether more match. */
  query(q: LedgerQuery = {}): SimLedgerPage {
    const limit = Math.min(Math.max(Math.floor(q.limit ?? LEDGER_DEFAULT_LIMIT), 1), LEDGER_MAX_LIMIT);
    const from = q.startMs ?? Number.NEGATIVE_INFINITY;
    const to = q.endMs ?? Number.POSITIVE_INFINITY;
    const lists = q.symbol !== undefined ? [this.bySymbol.get(q.symbol) ?? []] : [...this.bySymbol.values()];
    const found: LedgerEntry[] = [];
    // The newest limit + 1 matches of each symbol: enough to answer the window and say whether more match.
    for (const list of lists) {
      let taken = 0;
      for (let i = list.length - 1; i >= 0 && taken <= limit; i--) {
        const e = list[i]!;
        if (e.timestampMs < from || e.timestampMs > to || (q.kind !== undefined && e.kind !== q.kind)) continue;
        found.push(e);
        taken++;
      }
    }
    found.sort((a, b) => compareBillIds(b.billId, a.billId));
    return { entries: found.slice(0, limit), hasMore: found.length > limit };
  }
}

/** Bill ids are decimal strings of growing numbers. */
function compareBillIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}
