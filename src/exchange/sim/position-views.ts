// What the futures account shows of itself: each open position side with its id, mark, unrealised PnL, margin,
// funding and estimated liquidation price (F4 / F29, the in-process positions), and the account as a whole (F3).
import { Decimal } from '../../domain/decimal.js';
import type { Position } from '../../domain/market.js';
import { accountCross, contractLiquidationPrice } from './account-margin.js';
import type { Book } from './book.js';
import type { FuturesAccount } from './futures-account.js';
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

/** The book's open position sides as the port's Position (F4 in-process), with the optional fields filled. */
export function domainPositions(account: FuturesAccount, book: Book): Position[] {
  return positionViews(account, book).map((v) => ({
    symbol: v.symbol, side: v.side, size: v.size, openValue: v.openValue, entryPrice: v.openValue.div(v.size, 12), leverage: v.leverage,
    marginMode: 'SHARED', isolatedMargin: Decimal.ZERO, openFee: v.openFee, fundingFee: v.fundingFee, updatedAtMs: v.updatedAtMs,
    positionId: v.positionId, markPrice: v.mark, unrealizedPnl: v.unrealizedPnl, margin: v.margin, cumFundingFee: v.cumFundingFee,
    liquidationPrice: v.liquidationPrice,
  }));
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
