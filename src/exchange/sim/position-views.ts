// What the futures account shows of itself: each open position side with its id, mark, unrealised PnL, margin,
// funding and estimated liquidation price (F4 / F29, the in-process positions), and the account as a whole (F3).
import { Decimal } from '../../domain/decimal.js';
import type { Position, PositionSide } from '../../domain/market.js';
import { unrealizedPnl } from '../../domain/margin.js';
import { MarginMoment, accountCross, contractLiquidationPrice } from './account-margin.js';
import type { Book } from './book.js';
import { VALUE_SCALE, type FuturesAccount } from './futures-account.js';
import type { SimAccountView, SimPositionView } from './futures-views.js';

/** The book's open position sides, long first. */
export function positionViews(account: FuturesAccount, book: Book): SimPositionView[] {
  const out: SimPositionView[] = [];
  if (book.positions.long.size.isZero() && book.positions.short.size.isZero()) return out;
  const mark = account.mark(book);
  const liquidation = contractLiquidationPrice(account, book);
  for (const side of ['long', 'short'] as const) {
    const pos = book.positions[side];
    if (pos.size.isZero()) continue;
    out.push({
      positionId: pos.positionId,
      symbol: book.inst.symbol,
      side,
      size: pos.size,
      openValue: pos.openValue,
      openFee: pos.openFee,
      leverage: account.leverage,
      margin: account.positionMargin(pos),
      mark,
      unrealizedPnl: account.unrealized(book, side, mark),
      fundingFee: pos.fundingFee,
      cumFundingFee: pos.cumFundingFee,
      cumLiquidateFee: pos.cumLiquidateFee,
      cumOpenSize: pos.cumOpenSize,
      cumOpenValue: pos.cumOpenValue,
      cumOpenFee: pos.cumOpenFee,
      cumCloseSize: pos.cumCloseSize,
      cumCloseValue: pos.cumCloseValue,
      cumCloseFee: pos.cumCloseFee,
      liquidationPrice: liquidation,
      createdAtMs: pos.createdAtMs,
      updatedAtMs: pos.updatedAtMs,
    });
  }
  return out;
}

/** What a position side's worked-out fields are read from: the account at one instant, and the side then. */
interface Reading {
  account: FuturesAccount;
  book: Book;
  moment: MarginMoment;
  side: PositionSide;
  size: Decimal;
  openValue: Decimal;
  entry: Decimal | undefined;
  unrealized: Decimal | undefined;
  margin: Decimal | undefined;
}

/** Where a position keeps its Reading: a key no copy, spread or JSON of the position sees (not enumerable). */
const READING = Symbol('reading');
type Lazy = Position & { [READING]: Reading };

// The worked-out fields are the positions' own enumerable accessors (a copy, a spread or JSON shows them, as it would
// a literal's getters), made of these shared functions: a getter literal per position would cost a closure each, and
// such objects outlive the young generation (each poll's positions were promoted).
const field = (get: (r: Reading) => unknown): PropertyDescriptor => ({
  get(this: Lazy) {
    return get(this[READING]);
  },
  enumerable: true,
  configurable: true,
});
const ENTRY = field((r) => (r.entry ??= r.openValue.div(r.size, 12)));
const MARK = field((r) => r.moment.mark(r.book));
const UNREALIZED = field((r) => (r.unrealized ??= unrealizedPnl({ side: r.side, size: r.size, openValue: r.openValue, mark: r.moment.mark(r.book) })));
const MARGIN = field((r) => (r.margin ??= r.openValue.div(r.account.leverage, VALUE_SCALE, 'up')));
const LIQUIDATION = field((r) => r.moment.liquidationPrice(r.book));

/**
 * The book's open position sides as the port's Position (F4 in-process), with the optional fields filled. The
 * fields worked out from the account (entry price, mark, unrealised PnL, margin, liquidation price) are those of the
 * positionViews now, each worked out when first read from what the account was now: a backtest polls positions every
 * few seconds and seldom reads them.
 */
export function domainPositions(account: FuturesAccount, book: Book): Position[] {
  const out: Position[] = [];
  if (book.positions.long.size.isZero() && book.positions.short.size.isZero()) return out;
  const moment = new MarginMoment(account);
  for (const side of ['long', 'short'] as const) {
    const pos = book.positions[side];
    if (pos.size.isZero()) continue;
    const { size, openValue } = pos;
    const reading: Reading = { account, book, moment, side, size, openValue, entry: undefined, unrealized: undefined, margin: undefined };
    // The fields in the order of the port's Position, the worked-out ones in their places.
    const p = { symbol: book.inst.symbol, side, size, openValue } as Lazy;
    Object.defineProperty(p, READING, { value: reading });
    Object.defineProperty(p, 'entryPrice', ENTRY);
    p.leverage = account.leverage;
    p.marginMode = 'SHARED';
    p.isolatedMargin = Decimal.ZERO;
    p.openFee = pos.openFee;
    p.fundingFee = pos.fundingFee;
    p.updatedAtMs = pos.updatedAtMs;
    p.positionId = pos.positionId;
    Object.defineProperty(p, 'markPrice', MARK);
    Object.defineProperty(p, 'unrealizedPnl', UNREALIZED);
    Object.defineProperty(p, 'margin', MARGIN);
    p.cumFundingFee = pos.cumFundingFee;
    Object.defineProperty(p, 'liquidationPrice', LIQUIDATION);
    out.push(p);
  }
  return out;
}

/** The account at the marks now. */
export function accountView(account: FuturesAccount): SimAccountView {
  const cross = accountCross(account);
  return {
    collateral: account.total(),
    unrealizedPnl: cross.unrealizedPnl,
    equity: cross.equity,
    marginRate: cross.marginRate,
    maintenanceRate: cross.maintenanceRate,
    available: account.available(),
    cumFunding: account.cumFunding,
    cumFees: account.cumFees,
    cumLiquidationFees: account.cumLiquidationFees,
    liquidating: account.liquidating,
  };
}
