// The venue's enums and their meaning, both ways: spot `force`, futures `order_type` (names in records, digits in
// requests and trigger-order records), futures `type` (digits 1–4 in requests, names in records, digits 1–10 in
// trigger-order records), trigger-order statuses, candle periods and candle price types, the ledger's bill types
// (F30 `businessType`) and the sign convention of funding amounts.
import type { CandlePriceType, Timeframe } from '../../domain/candles.js';
import type { Decimal } from '../../domain/decimal.js';
import type { LedgerKind, PositionSide } from '../../domain/market.js';
import type { OrderStatus, TimeInForce } from '../../domain/order.js';

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

/**
 * Trigger-order record `type` digits (F21, F22): 1–4 as in requests; 5/6 partial close, 7/8 auto-deleveraging close,
 * 9/10 liquidation close, of a long / short.
 */
export const PLAN_TYPE_FROM_CODE: Readonly<Record<string, FuturesAction>> = {
  ...FUTURES_TYPE_FROM_CODE,
  '5': { positionSide: 'long', reduceOnly: true },
  '6': { positionSide: 'short', reduceOnly: true },
  '7': { positionSide: 'long', reduceOnly: true },
  '8': { positionSide: 'short', reduceOnly: true },
  '9': { positionSide: 'long', reduceOnly: true },
  '10': { positionSide: 'short', reduceOnly: true },
};

/**
 * Trigger-order record `status` digits: -1 canceled, 0 pending (not triggered yet), 1 partially filled, 2 filled.
 * A triggered order still resting unfilled has no documented digit of its own.
 */
export const PLAN_STATUS_FROM_CODE: Readonly<Record<string, OrderStatus>> = { '-1': 'canceled', '0': 'untriggered', '1': 'open', '2': 'filled' };

/**
 * The candle periods each candle endpoint takes, named as our timeframes (the venue's names are the same): spot
 * S10 `period` has every timeframe (and `1M`, which is no fixed length); futures `granularity` (F10, F11) has no
 * 2h, 6h or 8h.
 */
export const CANDLE_PERIODS: Readonly<Record<'S10' | 'F10' | 'F11', ReadonlySet<Timeframe>>> = (() => {
  const futures: ReadonlySet<Timeframe> = new Set<Timeframe>(['1m', '5m', '15m', '30m', '1h', '4h', '12h', '1d', '1w']);
  return { S10: new Set<Timeframe>(['1m', '5m', '15m', '30m', '1h', '2h', '4h', '6h', '8h', '12h', '1d', '1w']), F10: futures, F11: futures };
})();

/** Futures candle `priceType` values (F10, F11). */
export const PRICE_TYPE_CODE: Readonly<Record<CandlePriceType, 'LAST' | 'MARK' | 'INDEX'>> = { last: 'LAST', mark: 'MARK', index: 'INDEX' };

/**
 * How the venue signs funding in positions (`funding_fee`, `cum_funding_fee`) and collateral
 * (`cum_position_funding_amount`), which its docs leave open: as a change of collateral (received positive, paid
 * negative, as the F30 bills read) or as an amount paid (paid positive). Configuration `exchange.fundingFeeSign`.
 */
export type FundingFeeSign = 'collateral-change' | 'paid-positive';

/**
 * A funding amount between the wire and a change of collateral, both ways (the conversion is its own inverse): as
 * is under `collateral-change`, negated under `paid-positive`.
 */
export function fundingSigned(amount: Decimal, sign: FundingFeeSign): Decimal {
  return sign === 'collateral-change' || amount.isZero() ? amount : amount.neg();
}

/**
 * Every bill type (`businessType`) the venue documents for F30, and its kind. A kind several types share (fees, opens,
 * closes, transfers, other) has no one type to ask for: a query sends none and filters afterwards.
 */
export const LEDGER_KIND_OF: Readonly<Record<string, LedgerKind>> = {
  deposit: 'transfer',
  withdraw: 'transfer',
  transfer_in: 'transfer',
  transfer_out: 'transfer',
  // Collateral moved within the account (opening or closing a position, margin added by hand or automatically).
  margin_move_in: 'transfer',
  margin_move_out: 'transfer',
  position_open_long: 'open',
  position_open_short: 'open',
  position_close_long: 'close',
  position_close_short: 'close',
  position_funding: 'funding',
  order_fill_fee_income: 'fee',
  order_liquidate_fee_income: 'fee',
  start_liquidate: 'liquidation-start',
  finish_liquidate: 'liquidation-finish',
  // "Compensation for liquidation loss".
  order_fix_margin_amount: 'liquidation-compensation',
  // Copy trading: payments between followers and traders, neither fees nor transfers of ours.
  tracking_follow_pay: 'other',
  tracking_system_pre_receive: 'other',
  tracking_follow_back: 'other',
  tracking_trader_income: 'other',
  tracking_third_party_share: 'other',
};

/** The one businessType to send for a kind, or undefined when several (or none) stand for it: filter after reading. */
export function businessTypeOf(kind: LedgerKind): string | undefined {
  const types = Object.keys(LEDGER_KIND_OF).filter((t) => LEDGER_KIND_OF[t] === kind);
  return types.length === 1 ? types[0] : undefined;
}
