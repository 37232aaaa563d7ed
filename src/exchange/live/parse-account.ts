// Account records -> domain values: futures positions (F4), spot assets (S8) and futures collateral (F3).
import type { Balance, Position } from '../../domain/market.js';
import type { WireCollateral, WirePosition, WireSpotAsset } from '../wire/responses.js';
import { fieldsAt, type ParseContext } from './parse-context.js';

/** Collateral coin id 2 is USDT (the default collateral currency). */
const COIN_IDS: Record<number, string> = { 2: 'USDT' };

/** A position side, or null when it is empty or its side is unknown (reported). */
export function position(ctx: ParseContext, record: WirePosition, i: number, symbol: string): Position | null {
  const field = fieldsAt(`[${i}]`);
  const side = record.side.toUpperCase();
  if (side !== 'LONG' && side !== 'SHORT') {
    ctx.report(field('side'), record.side, 'unknown position side');
    return null;
  }
  const size = ctx.dec(field('size'), record.size);
  if (size.isZero()) return null;
  const openValue = ctx.dec(field('open_value'), record.open_value);
  return {
    symbol: record.symbol ?? symbol,
    side: side === 'LONG' ? 'long' : 'short',
    size,
    openValue,
    entryPrice: openValue.div(size, 12),
    leverage: ctx.decOpt(record.leverage),
    marginMode: record.margin_mode ?? '',
    isolatedMargin: ctx.decOpt(record.isolated_margin),
    openFee: ctx.decOpt(record.open_fee),
    fundingFee: ctx.decOpt(record.funding_fee),
    updatedAtMs: ctx.time(record.updated_time),
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

/** Futures collateral: the record gives the amount only, so available and frozen stay unknown. */
export function futuresBalance(ctx: ParseContext, record: WireCollateral, i: number): Balance {
  const field = fieldsAt(`collateral[${i}]`);
  const asset = record.coin ?? (record.coin_id !== undefined ? COIN_IDS[record.coin_id] : undefined);
  if (asset === undefined) ctx.report(field('coin_id'), record.coin_id, 'unknown collateral coin id');
  return {
    surface: 'futures',
    asset: asset ?? `coin_${String(record.coin_id ?? '?')}`,
    available: null,
    frozen: null,
    total: ctx.dec(field('amount'), record.amount),
  };
}
