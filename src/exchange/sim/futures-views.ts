// What the simulator's futures account shows of itself: a position with its mark, unrealised PnL, margin, funding
// and estimated liquidation price; the account's collateral, equity and margin rate; the options of its margin
// model. The engine produces them (engine.ts, futures-account.ts); both simulator faces and reports read them.
import { Decimal } from '../../domain/decimal.js';
import { DEFAULT_MAINTENANCE_TIERS, marginSettingsOf, type LiquidationTrigger, type MaintenanceTier, type MarginConfig } from '../../domain/margin.js';
import type { LedgerEntry, Liquidation, PositionSide } from '../../domain/market.js';
import type { PositionState } from './book.js';

/** The margin model of the simulator's futures account. */
export interface SimFuturesOptions {
  /** Mark = index + a seeded basis bounded by this many basis points (0: mark = index). */
  markBasisBps: number;
  tiers: readonly MaintenanceTier[];
  liquidationTrigger: LiquidationTrigger;
  /** Fee on a liquidation close, of its value; undefined: the contract's taker rate. */
  liquidationFeeRate?: Decimal;
}

/** The defaults of `exchange.margin` and `sim.futures`: the venue's example tiers, liquidation at maintenance, mark = index. */
export const DEFAULT_SIM_FUTURES: SimFuturesOptions = { markBasisBps: 0, tiers: DEFAULT_MAINTENANCE_TIERS, liquidationTrigger: 'maintenance' };

/** The options from their configured form (`exchange.margin`, `sim.futures`: rates as decimal text). */
export function simFuturesOptionsOf(margin: MarginConfig, futures: { markBasisBps: number; liquidationFeeRate?: string | undefined }): SimFuturesOptions {
  const { tiers, trigger } = marginSettingsOf(margin);
  return {
    markBasisBps: futures.markBasisBps,
    tiers,
    liquidationTrigger: trigger,
    ...(futures.liquidationFeeRate !== undefined ? { liquidationFeeRate: Decimal.from(futures.liquidationFeeRate) } : {}),
  };
}

/** One side of one contract with a size. Funding amounts are changes of collateral: negative when paid. */
export interface SimPositionView extends Pick<
  PositionState,
  | 'positionId'
  | 'size'
  | 'openValue'
  | 'openFee'
  | 'createdAtMs'
  | 'updatedAtMs'
  // The latest settlement's funding of this position and the sum over its life; the side's lifetime figures, as F4/F29 list them.
  | 'fundingFee'
  | 'cumFundingFee'
  | 'cumLiquidateFee'
  | 'cumOpenSize'
  | 'cumOpenValue'
  | 'cumOpenFee'
  | 'cumCloseSize'
  | 'cumCloseValue'
  | 'cumCloseFee'
> {
  symbol: string;
  side: PositionSide;
  leverage: Decimal;
  /** Margin held: open value / leverage. */
  margin: Decimal;
  mark: Decimal;
  unrealizedPnl: Decimal;
  /** The estimated liquidation price (the venue's formula, on the tick); null: none (low risk). */
  liquidationPrice: Decimal | null;
}

export interface SimAccountView {
  /** USDT collateral: deposits + realised PnL − fees − funding paid + funding received − liquidation fees (+ compensation). */
  collateral: Decimal;
  unrealizedPnl: Decimal;
  /** Collateral + unrealised PnL. */
  equity: Decimal;
  /** Equity / position value at mark, and the maintenance rate it is compared to; null with no position. */
  marginRate: Decimal | null;
  maintenanceRate: Decimal | null;
  /** Collateral free for new orders. */
  available: Decimal;
  /** Funding over the account's life (change of collateral), fees paid (trading, then liquidation). */
  cumFunding: Decimal;
  cumFees: Decimal;
  cumLiquidationFees: Decimal;
  /** True while a liquidation runs (in the simulator: only within the tick that liquidates). */
  liquidating: boolean;
}

/** One liquidation the simulator made: what a report lists. */
export type SimLiquidation = Liquidation;

/** A window of the simulator's ledger, newest first. */
export interface SimLedgerPage {
  entries: LedgerEntry[];
  hasMore: boolean;
}
