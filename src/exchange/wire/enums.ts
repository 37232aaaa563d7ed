// The venue's order enums and their meaning, both ways: spot `force`, futures `order_type` (names in records,
// digits in requests) and futures `type` (digits 1–4 in requests, names in records).
import type { PositionSide } from '../../domain/market.js';
import type { TimeInForce } from '../../domain/order.js';

/** Spot `force` and futures record `order_type` names. */
export const TIF_NAME: Readonly<Record<TimeInForce, 'normal' | 'postOnly' | 'fok' | 'ioc'>> = { gtc: 'normal', post_only: 'postOnly', fok: 'fok', ioc: 'ioc' };
export const TIF_FROM_NAME: Readonly<Record<string, TimeInForce>> = { normal: 'gtc', postOnly: 'post_only', fok: 'fok', ioc: 'ioc' };

/** Futures request `order_type` digits. */
export const TIF_CODE: Readonly<Record<TimeInForce, '0' | '1' | '2' | '3'>> = { gtc: '0', post_only: '1', fok: '2', ioc: '3' };
export const TIF_FROM_CODE: Readonly<Record<string, TimeInForce>> = { '0': 'gtc', '1': 'post_only', '2': 'fok', '3': 'ioc' };

export interface FuturesAction {
  positionSide: PositionSide;
  reduceOnly: boolean;
}

/** Futures request `type` 1–4 from the position touched and whether the order reduces it. */
export function futuresTypeCode(positionSide: PositionSide, reduceOnly: boolean): '1' | '2' | '3' | '4' {
  return positionSide === 'long' ? (reduceOnly ? '3' : '1') : reduceOnly ? '4' : '2';
}

export const FUTURES_TYPE_FROM_CODE: Readonly<Record<string, FuturesAction>> = {
  '1': { positionSide: 'long', reduceOnly: false },
  '2': { positionSide: 'short', reduceOnly: false },
  '3': { positionSide: 'long', reduceOnly: true },
  '4': { positionSide: 'short', reduceOnly: true },
};

/** Futures record `type` names (the venue also reports liquidation and ADL closes). */
export const FUTURES_TYPE_FROM_NAME: Readonly<Record<string, FuturesAction>> = {
  open_long: { positionSide: 'long', reduceOnly: false },
  open_short: { positionSide: 'short', reduceOnly: false },
  close_long: { positionSide: 'long', reduceOnly: true },
  close_short: { positionSide: 'short', reduceOnly: true },
  offset_liquidate_long: { positionSide: 'long', reduceOnly: true },
  offset_liquidate_short: { positionSide: 'short', reduceOnly: true },
  agreement_close_long: { positionSide: 'long', reduceOnly: true },
  agreement_close_short: { positionSide: 'short', reduceOnly: true },
  burst_liquidate_long: { positionSide: 'long', reduceOnly: true },
  burst_liquidate_short: { positionSide: 'short', reduceOnly: true },
};

export function futuresTypeName(a: FuturesAction): string {
  return `${a.reduceOnly ? 'close' : 'open'}_${a.positionSide}`;
}
