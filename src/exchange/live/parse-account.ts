// Account records -> domain values: futures positions (F4, F29), spot assets (S8) and futures collateral (F3).
// Funding amounts become changes of collateral by the configured sign convention (exchange.fundingFeeSign).
import { Decimal } from '../../domain/decimal.js';
import type { Balance, Position } from '../../domain/market.js';
import { fundingSigned, type FundingFeeSign } from '../wire/enums.js';
import { longToString } from '../wire/fields.js';
import type { WireCollateral, WirePosition, WireSpotAsset } from '../wire/responses.js';
import { fieldsAt, type FieldNamer, type ParseContext } from './parse-context.js';

/** Collateral coin id 2 is USDT (the default collateral currency). */
const COIN_IDS: Record<number, string> = { 2: 'USDT' };

/** A funding amount as a change of collateral; null when absent or "". */
function funding(ctx: ParseContext, text: string | undefined, sign: FundingFeeSign): Decimal | null {
  const value = ctx.decOpt(text);
  return value === null ? null : fundingSigned(value, sign);
}

/** `liquidatePrice`: "0" means no liquidation price (low risk) -> null; a negative one is reported, null. */
function liquidationPrice(ctx: ParseContext, field: FieldNamer, text: string): Decimal | null {
  const value = ctx.decOpt(text);
  return value === null || value.isZero() ? null : ctx.priceOpt(field('liquidatePrice'), text);
}

/**
 * A position side, or null when it is empty or its side is unknown (reported). `symbol`: the contract asked for (F4);
 * undefined for F29, whose records must name their contract. The fields F29 adds (and a newer F4 may carry) fill the
 * position's optional ones: the venue's position id, unrealised PnL, margin, lifetime funding and liquidation price.
 */
export function position(
  ctx: ParseContext,
  record: WirePosition,
  i: number,
  symbol: string | undefined,
  sign: FundingFeeSign = 'collateral-change',
): Position | null {
  const field = fieldsAt(`[${i}]`);
  const side = record.side.toUpperCase();
  if (side !== 'LONG' && side !== 'SHORT') {
    ctx.report(field('side'), record.side, 'unknown position side');
    return null;
  }
  const size = ctx.dec(field('size'), record.size);
  if (size.isZero()) return null;
  const contract = record.symbol || symbol;
  if (!contract) return ctx.fail(field('symbol'), 'a position without its contract cannot be attributed');
  const openValue = ctx.dec(field('open_value'), record.open_value);
  return {
    symbol: contract,
    side: side === 'LONG' ? 'long' : 'short',
    size,
    openValue,
    entryPrice: openValue.div(size, 12),
    leverage: ctx.decOpt(record.leverage),
    marginMode: record.margin_mode ?? '',
    isolatedMargin: ctx.decOpt(record.isolated_margin),
    openFee: ctx.decOpt(record.open_fee),
    fundingFee: funding(ctx, record.funding_fee, sign),
    updatedAtMs: ctx.time(record.updated_time),
    ...(record.id !== undefined ? { positionId: longToString(record.id) } : {}),
    ...(record.unrealizePnl !== undefined ? { unrealizedPnl: ctx.decOpt(record.unrealizePnl) } : {}),
    ...(record.marginSize !== undefined ? { margin: ctx.decOpt(record.marginSize) } : {}),
    ...(record.cum_funding_fee !== undefined ? { cumFundingFee: funding(ctx, record.cum_funding_fee, sign) } : {}),
    ...(record.liquidatePrice !== undefined ? { liquidationPrice: liquidationPrice(ctx, field, record.liquidatePrice) } : {}),
  };
}

export function spotBalance(ctx: ParseContext, record: WireSpotAsset, i: number): Balance {
  return {
    surface: 'spot',
    asset: record.coinName,
    available: ctx.decOpt(record.available),
    frozen: ctx.decOpt(record.frozen),
    total: ctx.dec(`data[${i}].equity`, record.equity),
  };
}

/**
 * Futures collateral: the record gives the amount only, so available and frozen stay unknown; the funding settled
 * over the account's life (as a change of collateral) and whether a liquidation runs, where the record has them.
 */
export function futuresBalance(ctx: ParseContext, record: WireCollateral, i: number, sign: FundingFeeSign = 'collateral-change'): Balance {
  const field = fieldsAt(`collateral[${i}]`);
  const asset = record.coin ?? (record.coin_id !== undefined ? COIN_IDS[record.coin_id] : undefined);
  if (asset === undefined) ctx.report(field('coin_id'), record.coin_id, 'unknown collateral coin id');
  return {
    surface: 'futures',
    asset: asset ?? `coin_${String(record.coin_id ?? '?')}`,
    available: null,
    frozen: null,
    total: ctx.dec(field('amount'), record.amount),
    ...(record.cum_position_funding_amount !== undefined ? { cumFunding: funding(ctx, record.cum_position_funding_amount, sign) } : {}),
    ...(record.is_liquidating !== undefined ? { liquidating: record.is_liquidating } : {}),
  };
}
