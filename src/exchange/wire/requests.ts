// Request parameters exactly as the venue takes them (query for GET, JSON body for POST), per endpoint.
import type { EndpointId } from '../endpoints.js';
import type { JsonBigInt } from './json.js';

/** A spot S6 order item. */
export interface WireSpotOrderItem {
  side: 'buy' | 'sell';
  orderType: 'limit' | 'market';
  force: 'normal' | 'postOnly' | 'fok' | 'ioc';
  price?: string;
  quantity: string;
  clientOrderId: string;
}

/** A futures F6 order item (same fields as the single placement, without symbol). */
export interface WireFuturesOrderItem {
  client_oid: string;
  size: string;
  /** 1 open long, 2 open short, 3 close long, 4 close short. */
  type: '1' | '2' | '3' | '4';
  /** 0 normal, 1 post-only, 2 fill-or-kill, 3 immediate-or-cancel. */
  order_type: '0' | '1' | '2' | '3';
  /** 0 limit price, 1 market price. */
  match_price: '0' | '1';
  price: string;
  presetTakeProfitPrice?: string;
  presetStopLossPrice?: string;
}

type Ms = number;
/** A candle period as S10 (`period`) and F10/F11 (`granularity`) name it: `1m`, `4h`, `1d`, `1w`. */
type CandlePeriod = string;
/** Which price futures candles follow. */
type WirePriceType = 'LAST' | 'MARK' | 'INDEX';
/** A `long` the venue takes as a JSON number; JsonBigInt keeps ids beyond 2^53 exact on the way out. */
type WireLongOut = number | JsonBigInt;

export interface RequestParams {
  S0: Record<string, never>;
  S1: { symbol: string; after?: Ms; before?: Ms; pageIndex?: number; pageSize?: number };
  S2: { symbol: string; orderId?: WireLongOut; after?: Ms; before?: Ms; pageIndex?: number; pageSize?: number };
  S3: { orderId?: string; clientOrderId?: string };
  S4: { symbol: string; orderIds?: string[]; clientOids?: string[] };
  S5: { symbol: string };
  S6: { symbol: string; orderList: WireSpotOrderItem[] };
  S7: { symbol?: string; symbols?: string };
  S8: Record<string, never>;
  S9: { symbol: string; limit?: number };
  S10: { symbol: string; period: CandlePeriod; limit?: number };
  S11: { symbol: string };
  /** `type`: depth merge step0 (default, none) … step5; `limit` 15 or 200. */
  S13: { symbol: string; type?: string; limit?: number };
  S15: { symbol: string; limit?: number; pageNo?: number };
  F0: Record<string, never>;
  F1: { symbol?: string };
  F2: Record<string, never>;
  F3: Record<string, never>;
  F4: { symbol: string };
  F5: { symbol?: string; orderId?: string; startTime?: Ms; endTime?: Ms; limit?: number; page?: number };
  F6: { symbol: string; marginMode?: 1 | 3; orderDataList: WireFuturesOrderItem[] };
  F7: { symbol: string; ids?: string[]; cids?: string[] };
  F8: {
    symbol: string;
    client_oid: string;
    size: string;
    type: '1' | '2' | '3' | '4';
    match_type: '0' | '1';
    execute_price: string;
    trigger_price: string;
    marginMode?: 1 | 3;
  };
  F9: { symbol: string; orderId: string };
  F10: { symbol: string; granularity: CandlePeriod; limit?: number; priceType?: WirePriceType };
  F11: { symbol: string; granularity: CandlePeriod; startTime?: Ms; endTime?: Ms; limit?: number; priceType?: WirePriceType };
  F12: { symbol: string };
  F13: { symbol: string; limit?: number };
  F14: { symbol?: string };
  F15: { symbol: string };
  F16: { symbol: string; limit?: number };
  F17: { symbol: string; priceType?: 'MARK' | 'INDEX' };
  F18: { orderId: string };
  /** createDate / endCreateDate: creation-time window in ms (look-back at most 90 days). */
  F19: { symbol?: string; pageSize?: number; createDate?: Ms; endCreateDate?: Ms };
  F20: { symbol?: string; orderId?: string; startTime?: Ms; endTime?: Ms; limit?: number };
  F21: { symbol?: string; orderId?: string; startTime?: Ms; endTime?: Ms; limit?: number; page?: number };
  /** delegateType: 1 open long, 2 open short, 3 close long, 4 close short. */
  F22: { symbol: string; startTime?: Ms; endTime?: Ms; delegateType?: 1 | 2 | 3 | 4; pageSize?: number };
  /** camelCase `clientOrderId` here; `executePrice` "0" for a market close; `marginMode` 1 cross, 3 isolated. */
  F23: {
    symbol: string;
    clientOrderId: string;
    planType: 'profit_plan' | 'loss_plan';
    triggerPrice: string;
    executePrice: string;
    size: string;
    positionSide: 'long' | 'short';
    marginMode?: 1 | 3;
  };
  /** `orderId` a bare JSON number (typed Long); `triggerPriceType` 1 last price (default), 3 mark price. */
  F24: { orderId: WireLongOut; triggerPrice: string; executePrice?: string; triggerPriceType?: 1 | 3 };
  F25: { symbol: string; marginMode?: 1 | 3 } & WireFuturesOrderItem;
  /** One of the two; no symbol. */
  F26: { orderId: string } | { clientOid: string };
  F27: { symbol?: string };
  F28: { symbol?: string; cancelOrderType: 'normal' | 'plan' };
  F29: Record<string, never>;
  F30: { coin?: string; symbol?: string; businessType?: string; startTime?: Ms; endTime?: Ms; limit?: number };
}

export type RequestOf<E extends EndpointId> = RequestParams[E];

/** F30's `limit` when none is sent (1–100). */
export const F30_DEFAULT_LIMIT = 20;

/** Client ids: at most 40 characters of [A-Za-z0-9_]. */
export const CLIENT_OID_RE = /^[A-Za-z0-9_]{1,40}$/;
