// What the futures account shows of itself: each open position side with its id, mark, unrealised PnL, margin,
// funding and estimated liquidation price (F4 / F29, the in-process positions), and the account as a whole (F3).
import { Decimal } from '../../domain/decimal.js';
import type { Position } from '../../domain/market.js';
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
      positionId: pos.positionId, symbol: book.inst.symbol, side, size: pos.size, openValue: pos.openValue, openFee: pos.openFee,
      leverage: account.leverage, margin: account.positionMargin(pos), mark, unrealizedPnl: account.unrealized(book, side, mark),
      fundingFee: pos.fundingFee, cumFundingFee: pos.cumFundingFee, cumLiquidateFee: pos.cumLiquidateFee,
      cumOpenSize: pos.cumOpenSize, cumOpenValue: pos.cumOpenValue, cumOpenFee: pos.cumOpenFee,
      cumCloseSize: pos.cumCloseSize, cumCloseValue: pos.cumCloseValue, cumCloseFee: pos.cumCloseFee,
      liquidationPrice: liquidation, createdAtMs: pos.createdAtMs, updatedAtMs: pos.updatedAtMs,
    });
  }
  return out;
}

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
  let mark: Decimal | undefined;
  let liquidation: Decimal | null | undefined;
  const markNow = () => (mark ??= moment.mark(book));
  for (const side of ['long', 'short'] as const) {
    const pos = book.positions[side];
    if (pos.size.isZero()) continue;
    const { size, openValue } = pos;
    let entry: Decimal | undefined;
    let unrealized: Decimal | undefined;
    let margin: Decimal | undefined;
    out.push({
      symbol: book.inst.symbol, side, size, openValue,
      get entryPrice() {
        return (entry ??= openValue.div(size, 12));
      },
      leverage: account.leverage, marginMode: 'SHARED', isolatedMargin: Decimal.ZERO, openFee: pos.openFee, fundingFee: pos.fundingFee, updatedAtMs: pos.updatedAtMs,
      positionId: pos.positionId,
      get markPrice() {
        return markNow();
      },
      get unrealizedPnl() {
        return (unrealized ??= unrealizedPnl({ side, size, openValue, mark: markNow() }));
      },
      get margin() {
        return (margin ??= openValue.div(account.leverage, VALUE_SCALE, 'up'));
      },
      cumFundingFee: pos.cumFundingFee,
      get liquidationPrice() {
        return liquidation === undefined ? (liquidation = moment.liquidationPrice(book)) : liquidation;
      },
    });
  }
  return out;
}

/** The account at the marks now. */
export function accountView(account: FuturesAccount): SimAccountView {
  const cross = accountCross(account);
  return {
    collateral: account.total(), unrealizedPnl: cross.unrealizedPnl, equity: cross.equity, marginRate: cross.marginRate,
    maintenanceRate: cross.maintenanceRate, available: account.available(), cumFunding: account.cumFunding, cumFees: account.cumFees,
    cumLiquidationFees: account.cumLiquidationFees, liquidating: account.liquidating,
  };
}
