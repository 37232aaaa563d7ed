// The exchange's REST endpoints as data: method, path, surface, auth, IP/UID weights, page and batch limits, and
// the budget pools each one charges (chargesOf). S1–S9 and F1–F9 are the interface's; S10, S11, S13, S15 and
// F10–F30 come from the extensions reference (§1.1–§6); S0 and F0 (server time) from the exchange facts.
import type { Surface } from '../domain/market.js';

export type EndpointId =
  | 'S1'
  | 'S2'
  | 'S3'
  | 'S4'
  | 'S5'
  | 'S6'
  | 'S7'
  | 'S8'
  | 'S9'
  | 'S10'
  | 'S11'
  | 'S13'
  | 'S15'
  | 'F1'
  | 'F2'
  | 'F3'
  | 'F4'
  | 'F5'
  | 'F6'
  | 'F7'
  | 'F8'
  | 'F9'
  | 'F10'
  | 'F11'
  | 'F12'
  | 'F13'
  | 'F14'
  | 'F15'
  | 'F16'
  | 'F17'
  | 'F18'
  | 'F19'
  | 'F20'
  | 'F21'
  | 'F22'
  | 'F23'
  | 'F24'
  | 'F25'
  | 'F26'
  | 'F27'
  | 'F28'
  | 'F29'
  | 'F30'
  | 'S0'
  | 'F0';

/** What a request does: decides its priority in the limiter (cancel > place > read). */
export type EndpointKind = 'read' | 'place' | 'cancel';

export interface Endpoint {
  id: EndpointId;
  name: string;
  method: 'GET' | 'POST';
  path: string;
  surface: Surface;
  auth: boolean;
  weight: { ip: number; uid: number };
  kind: EndpointKind;
  /** Counts against the venue's 10 requests/s cap on order endpoints. */
  orderRateLimited: boolean;
  /** Creates orders: counts against the account's create_order_rate_limit_per_minute. */
  createsOrders: boolean;
  /** Largest page (pageSize / limit) the endpoint accepts. */
  maxPageSize?: number;
  /** The only `limit` values the endpoint accepts, where it takes a fixed set (order-book depth gears). */
  limitChoices?: readonly number[];
  /** Largest batch (orders per request) the endpoint accepts, where known. */
  maxBatch?: number;
}

function ep(e: Omit<Endpoint, 'orderRateLimited' | 'createsOrders'> & Partial<Pick<Endpoint, 'orderRateLimited' | 'createsOrders'>>): Endpoint {
  return { orderRateLimited: false, createsOrders: false, ...e };
}

export const ENDPOINTS: Readonly<Record<EndpointId, Endpoint>> = {
  S1: ep({
    id: 'S1',
    name: 'trade/history',
    method: 'POST',
    path: '/api/v2/trade/history',
    surface: 'spot',
    auth: true,
    weight: { ip: 10, uid: 10 },
    kind: 'read',
    maxPageSize: 100,
  }),
  S2: ep({
    id: 'S2',
    name: 'trade/fills',
    method: 'POST',
    path: '/api/v2/trade/fills',
    surface: 'spot',
    auth: true,
    weight: { ip: 5, uid: 5 },
    kind: 'read',
    maxPageSize: 100,
  }),
  S3: ep({
    id: 'S3',
    name: 'trade/orderInfo',
    method: 'POST',
    path: '/api/v2/trade/orderInfo',
    surface: 'spot',
    auth: true,
    weight: { ip: 2, uid: 2 },
    kind: 'read',
  }),
  // Spot batch cancel: at most 50 ids (code 40912 "Batch cancel limit exceeded (max 50 orders)").
  S4: ep({
    id: 'S4',
    name: 'trade/cancel-batch-orders',
    method: 'POST',
    path: '/api/v2/trade/cancel-batch-orders',
    surface: 'spot',
    auth: true,
    weight: { ip: 5, uid: 10 },
    kind: 'cancel',
    orderRateLimited: true,
    maxBatch: 50,
  }),
  S5: ep({
    id: 'S5',
    name: 'trade/cancel-symbol-order',
    method: 'POST',
    path: '/api/v2/trade/cancel-symbol-order',
    surface: 'spot',
    auth: true,
    weight: { ip: 5, uid: 8 },
    kind: 'cancel',
    orderRateLimited: true,
  }),
  // Spot batch place: the venue's maximum is undocumented; 20 mirrors the futures limit as a safe default.
  S6: ep({
    id: 'S6',
    name: 'trade/batch-orders',
    method: 'POST',
    path: '/api/v2/trade/batch-orders',
    surface: 'spot',
    auth: true,
    weight: { ip: 5, uid: 10 },
    kind: 'place',
    orderRateLimited: true,
    createsOrders: true,
    maxBatch: 20,
  }),
  S7: ep({
    id: 'S7',
    name: 'public/exchangeInfo',
    method: 'GET',
    path: '/api/v2/public/exchangeInfo',
    surface: 'spot',
    auth: false,
    weight: { ip: 10, uid: 0 },
    kind: 'read',
  }),
  S8: ep({
    id: 'S8',
    name: 'account/assets',
    method: 'GET',
    path: '/api/v2/account/assets',
    surface: 'spot',
    auth: true,
    weight: { ip: 5, uid: 5 },
    kind: 'read',
  }),
  S9: ep({
    id: 'S9',
    name: 'market/fills',
    method: 'GET',
    path: '/api/v2/market/fills',
    surface: 'spot',
    auth: false,
    weight: { ip: 5, uid: 0 },
    kind: 'read',
    maxPageSize: 1000,
  }),
  // Spot candles: `period` 1m…1w (and 1M); the latest rows only, about 300 in a live probe (no documented maximum,
  // no paging: the older revision's startTime/endTime are gone from the current one). Rows newest first.
  S10: ep({
    id: 'S10',
    name: 'market/candles',
    method: 'GET',
    path: '/api/v2/market/candles',
    surface: 'spot',
    auth: false,
    weight: { ip: 1, uid: 0 },
    kind: 'read',
  }),
  // One pair's ticker: last price and 24 h figures, no best bid or ask (those need S13).
  S11: ep({
    id: 'S11',
    name: 'market/ticker',
    method: 'GET',
    path: '/api/v2/market/ticker',
    surface: 'spot',
    auth: false,
    weight: { ip: 1, uid: 0 },
    kind: 'read',
  }),
  // Spot order book: `limit` "Only 15 and 200"; the default when omitted is undocumented.
  S13: ep({
    id: 'S13',
    name: 'market/depth',
    method: 'GET',
    path: '/api/v2/market/depth',
    surface: 'spot',
    auth: false,
    weight: { ip: 1, uid: 0 },
    kind: 'read',
    limitChoices: [15, 200],
  }),
  // Spot open orders: a read sent as POST; pages are `pageNo` (from 0) and `limit` (1–100).
  S15: ep({
    id: 'S15',
    name: 'trade/open-orders',
    method: 'POST',
    path: '/api/v2/trade/open-orders',
    surface: 'spot',
    auth: true,
    weight: { ip: 3, uid: 3 },
    kind: 'read',
    maxPageSize: 100,
  }),
  F1: ep({
    id: 'F1',
    name: 'market/contracts',
    method: 'GET',
    path: '/capi/v2/market/contracts',
    surface: 'futures',
    auth: false,
    weight: { ip: 10, uid: 0 },
    kind: 'read',
  }),
  F2: ep({
    id: 'F2',
    name: 'market/tickers',
    method: 'GET',
    path: '/capi/v2/market/tickers',
    surface: 'futures',
    auth: false,
    weight: { ip: 40, uid: 0 },
    kind: 'read',
  }),
  F3: ep({
    id: 'F3',
    name: 'account/accounts',
    method: 'GET',
    path: '/capi/v2/account/accounts',
    surface: 'futures',
    auth: true,
    weight: { ip: 5, uid: 5 },
    kind: 'read',
  }),
  F4: ep({
    id: 'F4',
    name: 'account/position/singlePosition',
    method: 'GET',
    path: '/capi/v2/account/position/singlePosition',
    surface: 'futures',
    auth: true,
    weight: { ip: 2, uid: 3 },
    kind: 'read',
  }),
  F5: ep({
    id: 'F5',
    name: 'order/current',
    method: 'GET',
    path: '/capi/v2/order/current',
    surface: 'futures',
    auth: true,
    weight: { ip: 2, uid: 2 },
    kind: 'read',
    maxPageSize: 100,
  }),
  F6: ep({
    id: 'F6',
    name: 'order/batchOrders',
    method: 'POST',
    path: '/capi/v2/order/batchOrders',
    surface: 'futures',
    auth: true,
    weight: { ip: 5, uid: 10 },
    kind: 'place',
    orderRateLimited: true,
    createsOrders: true,
    maxBatch: 20,
  }),
  // Futures batch cancel: no published maximum; 20 mirrors the batch place limit.
  F7: ep({
    id: 'F7',
    name: 'order/cancel_batch_orders',
    method: 'POST',
    path: '/capi/v2/order/cancel_batch_orders',
    surface: 'futures',
    auth: true,
    weight: { ip: 5, uid: 10 },
    kind: 'cancel',
    orderRateLimited: true,
    maxBatch: 20,
  }),
  F8: ep({
    id: 'F8',
    name: 'order/plan_order',
    method: 'POST',
    path: '/capi/v2/order/plan_order',
    surface: 'futures',
    auth: true,
    weight: { ip: 2, uid: 5 },
    kind: 'place',
    orderRateLimited: true,
    createsOrders: true,
  }),
  F9: ep({
    id: 'F9',
    name: 'order/cancel_plan',
    method: 'POST',
    path: '/capi/v2/order/cancel_plan',
    surface: 'futures',
    auth: true,
    weight: { ip: 2, uid: 3 },
    kind: 'cancel',
    orderRateLimited: true,
  }),
  // Latest futures candles: `limit` 1–1000 (default 100), newest first, the newest still forming; start and end
  // times are silently ignored (a live probe), so older rows come from F11.
  F10: ep({
    id: 'F10',
    name: 'market/candles',
    method: 'GET',
    path: '/capi/v2/market/candles',
    surface: 'futures',
    auth: false,
    weight: { ip: 1, uid: 0 },
    kind: 'read',
    maxPageSize: 1000,
  }),
  // Candle history: at most 100 rows a request, paged by the time window.
  F11: ep({
    id: 'F11',
    name: 'market/historyCandles',
    method: 'GET',
    path: '/capi/v2/market/historyCandles',
    surface: 'futures',
    auth: false,
    weight: { ip: 5, uid: 0 },
    kind: 'read',
    maxPageSize: 100,
  }),
  // One contract's ticker (weight 1, 40 times cheaper than F2). A third-party SDK says 5/2; the venue's docs say 1.
  F12: ep({
    id: 'F12',
    name: 'market/ticker',
    method: 'GET',
    path: '/capi/v2/market/ticker',
    surface: 'futures',
    auth: false,
    weight: { ip: 1, uid: 0 },
    kind: 'read',
  }),
  // Futures order book: `limit` is a gear, 15 (default) or 200.
  F13: ep({
    id: 'F13',
    name: 'market/depth',
    method: 'GET',
    path: '/capi/v2/market/depth',
    surface: 'futures',
    auth: false,
    weight: { ip: 1, uid: 0 },
    kind: 'read',
    limitChoices: [15, 200],
  }),
  // Current funding rates: every contract when no symbol is given.
  F14: ep({
    id: 'F14',
    name: 'market/currentFundRate',
    method: 'GET',
    path: '/capi/v2/market/currentFundRate',
    surface: 'futures',
    auth: false,
    weight: { ip: 1, uid: 0 },
    kind: 'read',
  }),
  F15: ep({
    id: 'F15',
    name: 'market/funding_time',
    method: 'GET',
    path: '/capi/v2/market/funding_time',
    surface: 'futures',
    auth: false,
    weight: { ip: 1, uid: 0 },
    kind: 'read',
  }),
  // Settled funding rates: the latest `limit` (1–100, default 10); no time window, so about 33 days at 8 h.
  F16: ep({
    id: 'F16',
    name: 'market/getHistoryFundRate',
    method: 'GET',
    path: '/capi/v2/market/getHistoryFundRate',
    surface: 'futures',
    auth: false,
    weight: { ip: 5, uid: 0 },
    kind: 'read',
    maxPageSize: 100,
  }),
  // Index or mark price (`priceType`); a third-party SDK says 5/2, the venue's docs 1.
  F17: ep({
    id: 'F17',
    name: 'market/index',
    method: 'GET',
    path: '/capi/v2/market/index',
    surface: 'futures',
    auth: false,
    weight: { ip: 1, uid: 0 },
    kind: 'read',
  }),
  // One order in any state, by order id only (an unknown id answers 50005).
  F18: ep({
    id: 'F18',
    name: 'order/detail',
    method: 'GET',
    path: '/capi/v2/order/detail',
    surface: 'futures',
    auth: true,
    weight: { ip: 2, uid: 2 },
    kind: 'read',
  }),
  // Order history: no page or cursor, only `pageSize` (maximum undocumented: 100 as the other futures lists) and a
  // creation-time window; older pages come from lowering `endCreateDate`.
  F19: ep({
    id: 'F19',
    name: 'order/history',
    method: 'GET',
    path: '/capi/v2/order/history',
    surface: 'futures',
    auth: true,
    weight: { ip: 10, uid: 10 },
    kind: 'read',
    maxPageSize: 100,
  }),
  // The account's fills: `limit` up to 100, `nextFlag` says more exist (older ones: lower `endTime`).
  F20: ep({
    id: 'F20',
    name: 'order/fills',
    method: 'GET',
    path: '/capi/v2/order/fills',
    surface: 'futures',
    auth: true,
    weight: { ip: 5, uid: 5 },
    kind: 'read',
    maxPageSize: 100,
  }),
  // Open trigger orders: `limit` up to 100 and `page` from 0.
  F21: ep({
    id: 'F21',
    name: 'order/currentPlan',
    method: 'GET',
    path: '/capi/v2/order/currentPlan',
    surface: 'futures',
    auth: true,
    weight: { ip: 3, uid: 3 },
    kind: 'read',
    maxPageSize: 100,
  }),
  // Trigger-order history of one contract: `pageSize` 1–100 and a time window (no page index: older rows come from
  // moving the window).
  F22: ep({
    id: 'F22',
    name: 'order/historyPlan',
    method: 'GET',
    path: '/capi/v2/order/historyPlan',
    surface: 'futures',
    auth: true,
    weight: { ip: 5, uid: 10 },
    kind: 'read',
    maxPageSize: 100,
  }),
  // Position take-profit / stop-loss (`planType` profit_plan / loss_plan), sized in base coin; answers an array of
  // {orderId, success} with no error text. Moved in place by F24 (trigger and execute price; the size cannot change).
  F23: ep({
    id: 'F23',
    name: 'order/placeTpSlOrder',
    method: 'POST',
    path: '/capi/v2/order/placeTpSlOrder',
    surface: 'futures',
    auth: true,
    weight: { ip: 2, uid: 5 },
    kind: 'place',
    orderRateLimited: true,
    createsOrders: true,
  }),
  // The one futures answer in the spot-style envelope ({code "00000", msg, requestTime, data ""}).
  F24: ep({
    id: 'F24',
    name: 'order/modifyTpSlOrder',
    method: 'POST',
    path: '/capi/v2/order/modifyTpSlOrder',
    surface: 'futures',
    auth: true,
    weight: { ip: 2, uid: 5 },
    kind: 'place',
    orderRateLimited: true,
  }),
  F25: ep({
    id: 'F25',
    name: 'order/placeOrder',
    method: 'POST',
    path: '/capi/v2/order/placeOrder',
    surface: 'futures',
    auth: true,
    weight: { ip: 2, uid: 5 },
    kind: 'place',
    orderRateLimited: true,
    createsOrders: true,
  }),
  // By `orderId` or `clientOid`, no symbol.
  F26: ep({
    id: 'F26',
    name: 'order/cancel_order',
    method: 'POST',
    path: '/capi/v2/order/cancel_order',
    surface: 'futures',
    auth: true,
    weight: { ip: 2, uid: 3 },
    kind: 'cancel',
    orderRateLimited: true,
  }),
  // Every position of a contract (or of all) closed at market; resting orders are left alone (cancel them first, F28).
  F27: ep({
    id: 'F27',
    name: 'order/closePositions',
    method: 'POST',
    path: '/capi/v2/order/closePositions',
    surface: 'futures',
    auth: true,
    weight: { ip: 40, uid: 50 },
    kind: 'cancel',
    orderRateLimited: true,
  }),
  // Every order of a contract (or of all) of one kind: `cancelOrderType` normal or plan (two calls clear both).
  F28: ep({
    id: 'F28',
    name: 'order/cancelAllOrders',
    method: 'POST',
    path: '/capi/v2/order/cancelAllOrders',
    surface: 'futures',
    auth: true,
    weight: { ip: 40, uid: 50 },
    kind: 'cancel',
    orderRateLimited: true,
  }),
  // Every position, with margin, unrealised PnL and the venue's estimated liquidation price.
  F29: ep({
    id: 'F29',
    name: 'account/position/allPosition',
    method: 'GET',
    path: '/capi/v2/account/position/allPosition',
    surface: 'futures',
    auth: true,
    weight: { ip: 10, uid: 15 },
    kind: 'read',
  }),
  // The account ledger (funding, fees, liquidations, transfers): `limit` 1–100 (default 20), paged by the time window.
  F30: ep({
    id: 'F30',
    name: 'account/bills',
    method: 'POST',
    path: '/capi/v2/account/bills',
    surface: 'futures',
    auth: true,
    weight: { ip: 2, uid: 5 },
    kind: 'read',
    maxPageSize: 100,
  }),
  // Server time, for clock-skew correction (the venue rejects timestamps more than 30 s off with 40008).
  // Their weights are not published; 1 is charged so they still pass the limiter.
  S0: ep({ id: 'S0', name: 'public/time', method: 'GET', path: '/api/v2/public/time', surface: 'spot', auth: false, weight: { ip: 1, uid: 0 }, kind: 'read' }),
  F0: ep({
    id: 'F0',
    name: 'market/time',
    method: 'GET',
    path: '/capi/v2/market/time',
    surface: 'futures',
    auth: false,
    weight: { ip: 1, uid: 0 },
    kind: 'read',
  }),
};

export const ENDPOINT_IDS = Object.keys(ENDPOINTS) as EndpointId[];

export function isEndpointId(id: string): id is EndpointId {
  return Object.prototype.hasOwnProperty.call(ENDPOINTS, id);
}

/** The heaviest IP and UID weight any endpoint of a surface charges (the limiter's burst must fit it). */
export function maxWeights(surface: Surface): { ip: number; uid: number } {
  let ip = 0;
  let uid = 0;
  for (const e of Object.values(ENDPOINTS)) {
    if (e.surface !== surface) continue;
    ip = Math.max(ip, e.weight.ip);
    uid = Math.max(uid, e.weight.uid);
  }
  return { ip, uid };
}

/** A budget pool of a surface: IP weight, UID weight, or requests to order endpoints. */
export type PoolKind = 'ip' | 'uid' | 'orders';

/** A pool's name, as meters, limiters and metrics key it: `futures:ip`, `spot:orders`. */
export type PoolName = `${Surface}:${PoolKind}`;

/** One pool a request is charged to, and how much. */
export interface PoolCharge {
  pool: PoolName;
  kind: PoolKind;
  weight: number;
}

/**
 * The pools one request of `endpoint` is charged to, in this order: its IP weight always; its UID weight when it
 * is signed and weighs on the UID (the venue counts unsigned requests per IP only); one request in the
 * order-rate pool when it is an order endpoint. The account's order-creation rate is not here: it counts orders,
 * not requests, and exists only when the account has one.
 */
export function chargesOf(endpoint: Endpoint): PoolCharge[] {
  const s = endpoint.surface;
  const out: PoolCharge[] = [{ pool: `${s}:ip`, kind: 'ip', weight: endpoint.weight.ip }];
  if (endpoint.auth && endpoint.weight.uid > 0) out.push({ pool: `${s}:uid`, kind: 'uid', weight: endpoint.weight.uid });
  if (endpoint.orderRateLimited) out.push({ pool: `${s}:orders`, kind: 'orders', weight: 1 });
  return out;
}
