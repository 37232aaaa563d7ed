// Response shapes exactly as the venue sends them (venue field names kept), one schema per endpoint; the futures
// account shapes live in futures-account.ts, the futures write answers in futures-writes.ts.
// Fields the layers above rely on are required; other documented fields are type-checked when present.
// Extra fields pass through: the venue adds fields over time.
import { z } from 'zod';
import type { EndpointId } from '../endpoints.js';
import { decStr, int, long, timeMs } from './fields.js';
import { futuresAccountList, futuresPosition, ledgerPage } from './futures-account.js';
import {
  canceledAll,
  closedPositions,
  futuresBatchCancel,
  futuresBatchPlace,
  futuresCancelPlan,
  futuresCanceledOrder,
  futuresPlacedOrder,
  tpSlModified,
  tpSlPlaced,
} from './futures-writes.js';

export {
  futuresAccountList,
  futuresCollateral,
  futuresPosition,
  ledgerBill,
  ledgerPage,
  type WireAccountList,
  type WireCollateral,
  type WireLedgerBill,
  type WireLedgerPage,
  type WirePosition,
} from './futures-account.js';
export {
  futuresBatchCancel,
  futuresBatchPlace,
  type WireBatchCancel,
  type WireBatchPlace,
  type WireCanceledAll,
  type WireCanceledOrder,
  type WireClosedPositions,
  type WireTpSlPlaced,
} from './futures-writes.js';

const str = z.string();
const bool = z.boolean();
const opt = <T extends z.ZodType>(t: T) => t.optional();

/** The envelope every spot answer, every futures error and the one futures success F24 come in. */
export const envelope = z.looseObject({
  code: z.string(),
  msg: z.string().nullable().optional(),
  requestTime: opt(z.number()),
  data: z.unknown().optional(),
});
export type Envelope = z.infer<typeof envelope>;

// ---- spot ----
export const spotOrderRecord = z.looseObject({
  accountId: opt(long),
  symbol: str,
  orderId: long,
  clientOrderId: opt(z.string().nullable()),
  price: decStr,
  quantity: decStr,
  orderType: str,
  side: str,
  status: str,
  latestFillPrice: opt(decStr),
  maxFillPrice: opt(decStr),
  minFillPrice: opt(decStr),
  fillQuantity: decStr,
  fillTotalAmount: opt(decStr),
  cTime: timeMs,
  uTime: opt(timeMs),
});
export type WireSpotOrder = z.infer<typeof spotOrderRecord>;

const paging = { nextPage: opt(z.boolean().nullable()), totals: opt(z.number().nullable()) };
// S15 sends null for both in every sample; their type when set is undocumented, and paging does not rely on them.
const loosePaging = { nextPage: opt(z.union([bool, z.number(), str]).nullable()), totals: opt(z.union([z.number(), str]).nullable()) };

export const spotFillRecord = z.looseObject({
  accountId: opt(long),
  symbol: str,
  baseCoin: opt(str),
  quoteCoin: opt(str),
  orderId: long,
  fillId: long,
  orderType: str, // may be ""
  side: str,
  fillPrice: decStr, // may be ""
  fillQuantity: decStr,
  fillTotalAmount: decStr,
  fees: decStr,
  cTime: timeMs,
});
export type WireSpotFill = z.infer<typeof spotFillRecord>;

export const spotSymbolInfo = z.looseObject({
  symbol: str,
  baseCoin: str,
  quoteCoin: str,
  tickSize: decStr,
  stepSize: decStr,
  minTradeAmount: decStr,
  maxTradeAmount: opt(decStr),
  takerFeeRate: decStr,
  makerFeeRate: decStr,
  buyLimitPriceRatio: opt(decStr),
  sellLimitPriceRatio: opt(decStr),
  marketBuyLimitSize: opt(decStr),
  marketSellLimitSize: opt(decStr),
  marketFallbackPriceRatio: opt(decStr),
  enableTrade: bool,
  enableDisplay: opt(bool),
  displayDigitMerge: opt(str),
  displayNew: opt(bool),
  displayHot: opt(bool),
  supportTracing: opt(bool),
  supportPlanMarket: opt(bool),
});
export type WireSpotSymbol = z.infer<typeof spotSymbolInfo>;

export const spotAsset = z.looseObject({
  coinId: opt(int),
  coinName: str,
  available: decStr,
  frozen: decStr,
  equity: decStr,
});
export type WireSpotAsset = z.infer<typeof spotAsset>;

export const spotPublicTrade = z.looseObject({
  symbol: str,
  tradeId: str,
  fillTime: timeMs,
  fillPrice: decStr,
  fillQuantity: decStr,
  tradeValue: opt(decStr),
  bestMatch: opt(bool),
  buyerMaker: bool,
});
export type WireSpotTrade = z.infer<typeof spotPublicTrade>;

// A failure of a cancel by client id names no order id: `""` (unknown), as `clientOid` is `""` when the id named none.
const cancelFailure = z.looseObject({ orderId: opt(z.union([long, z.literal('')])), clientOid: opt(z.string().nullable()), errMsg: str });
export const spotCancelResult = z.looseObject({
  successList: z.array(long),
  failureList: z.array(cancelFailure),
});

// ---- market data (S10, S11, S13; F10–F17) ----

/**
 * A candle row (S10, F10, F11): [open time ms, open, high, low, close, base volume, quote volume]. Spot sends
 * [0] as a JSON number, futures all seven as strings; items after the seventh pass through.
 */
export const candleRow = z.tuple([timeMs, decStr, decStr, decStr, decStr, decStr, decStr], z.unknown());
export type WireCandleRow = z.infer<typeof candleRow>;

/**
 * A spot pair's ticker (S11): last price and 24 h figures; `priceChangePercent` is a ratio. markPrice, indexPrice
 * and openInterest appear in some revisions only, as "0". There is no best bid or ask.
 */
export const spotTicker = z.looseObject({
  symbol: str,
  priceChange: opt(decStr),
  priceChangePercent: opt(decStr),
  trades: opt(long),
  size: opt(decStr),
  value: opt(decStr),
  high: opt(decStr),
  low: opt(decStr),
  open: opt(decStr),
  close: opt(decStr),
  highTime: opt(timeMs),
  lowTime: opt(timeMs),
  startTime: opt(timeMs),
  endTime: opt(timeMs),
  lastPrice: decStr,
  markPrice: opt(decStr),
  indexPrice: opt(decStr),
  openInterest: opt(decStr),
  ts: timeMs,
});
export type WireSpotTicker = z.infer<typeof spotTicker>;

/** One order-book level: [price, quantity in base currency]. */
const bookLevel = z.tuple([decStr, decStr], z.unknown());

/**
 * An order book (S13 inside the envelope, F13 bare): asks ascending, bids descending. The spot field table lists no
 * `timestamp` although its sample carries one.
 */
export const orderBook = z.looseObject({ asks: z.array(bookLevel), bids: z.array(bookLevel), timestamp: opt(timeMs) });
export type WireOrderBook = z.infer<typeof orderBook>;

/** F14: `collectCycle` minutes between settlements; `timestamp` is a reading time, not a settlement. */
export const fundingRateRecord = z.looseObject({
  symbol: str,
  fundingRate: decStr,
  collectCycle: z.union([int, z.string().regex(/^\d+$/, { error: (iss) => `expected minutes, got ${JSON.stringify(iss.input)}` })]),
  timestamp: timeMs,
  baseCurrency: opt(z.string().nullable()),
});
export type WireFundingRate = z.infer<typeof fundingRateRecord>;

export const fundingSettlementRecord = z.looseObject({ symbol: str, fundingRate: decStr, fundingTime: timeMs });
export type WireFundingSettlement = z.infer<typeof fundingSettlementRecord>;

/**
 * A futures trigger (plan) order as F21 and F22 list it: `status` -1 canceled, 0 pending, 1 partially filled,
 * 2 filled; `type` 1–10 and `order_type` 0–3 as digits (numeric strings, unlike the order records of F5/F18/F19).
 * `order_id` may exceed 2^53.
 */
export const futuresPlanRecord = z.looseObject({
  symbol: str,
  size: decStr,
  client_oid: opt(z.string().nullable()),
  createTime: timeMs,
  filled_qty: opt(decStr),
  fee: opt(decStr),
  order_id: long,
  price: decStr,
  price_avg: opt(decStr),
  status: z.union([str, int]),
  type: z.union([str, int]),
  order_type: z.union([str, int]),
  totalProfits: opt(decStr),
  triggerPrice: decStr,
  // "LIMIT" and "" are the values seen; the others are undocumented.
  triggerPriceType: opt(z.string().nullable()),
  triggerTime: opt(z.union([timeMs, z.literal('')]).nullable()),
  presetTakeProfitPrice: opt(decStr.nullable()),
  presetStopLossPrice: opt(decStr.nullable()),
});
export type WirePlanOrder = z.infer<typeof futuresPlanRecord>;

// ---- futures ----
export const futuresContract = z.looseObject({
  symbol: str,
  underlying_index: str,
  quote_currency: str,
  coin: opt(str),
  contract_val: opt(decStr),
  listing: opt(z.union([z.null(), timeMs, str])),
  delivery: opt(z.array(str)),
  size_increment: decStr,
  tick_size: decStr,
  forwardContractFlag: opt(bool),
  priceEndStep: opt(z.union([int, decStr])),
  minLeverage: opt(int),
  maxLeverage: opt(int),
  buyLimitPriceRatio: opt(decStr),
  sellLimitPriceRatio: opt(decStr),
  makerFeeRate: decStr,
  takerFeeRate: decStr,
  minOrderSize: decStr,
  maxOrderSize: opt(decStr),
  maxPositionSize: opt(decStr),
});
export type WireContract = z.infer<typeof futuresContract>;

export const futuresTicker = z.looseObject({
  symbol: str,
  best_ask: decStr,
  best_bid: decStr,
  high_24h: opt(decStr),
  last: decStr,
  low_24h: opt(decStr),
  timestamp: timeMs,
  volume_24h: opt(decStr),
  priceChangePercent: opt(decStr),
  base_volume: opt(decStr),
  markPrice: opt(decStr),
  indexPrice: opt(decStr),
});
export type WireTicker = z.infer<typeof futuresTicker>;

export const futuresOrder = z.looseObject({
  symbol: str,
  size: decStr,
  client_oid: opt(z.string().nullable()),
  createTime: timeMs,
  filled_qty: decStr,
  fee: opt(decStr),
  order_id: long,
  price: decStr,
  price_avg: opt(decStr),
  status: str,
  type: str,
  order_type: str,
  totalProfits: opt(decStr),
  contracts: opt(int),
  filledQtyContracts: opt(int),
  presetTakeProfitPrice: opt(decStr.nullable()),
  presetStopLossPrice: opt(decStr.nullable()),
});
export type WireFuturesOrder = z.infer<typeof futuresOrder>;

/**
 * An F20 fill. `tradeId` and `orderId` are raw JSON numbers beyond 2^53. The documented sample contradicts the
 * field table (`liquidateFee: "MAKER"`, `direction: "OPEN_LONG"` where the WS docs put MAKER/TAKER in
 * `direction`): those fields are taken as free strings and interpreted defensively when parsed.
 */
export const futuresFillRecord = z.looseObject({
  tradeId: long,
  orderId: long,
  symbol: str,
  marginMode: opt(z.string().nullable()),
  separatedMode: opt(z.string().nullable()),
  positionSide: opt(z.string().nullable()),
  orderSide: opt(z.string().nullable()),
  fillSize: decStr,
  fillValue: decStr,
  fillFee: decStr,
  liquidateFee: opt(z.string().nullable()),
  realizePnl: opt(z.string().nullable()),
  direction: opt(z.string().nullable()),
  liquidateType: opt(z.string().nullable()),
  legacyOrdeDirection: opt(z.string().nullable()),
  createdTime: timeMs,
  /** Not documented; used instead of fillValue / fillSize when a revision sends it. */
  fillPrice: opt(decStr),
});
export type WireFuturesFill = z.infer<typeof futuresFillRecord>;

/** Payload schema of each endpoint: spot schemas describe `data` inside the envelope, futures the bare body. */
export const RESPONSE_SCHEMAS = {
  S1: z.looseObject({ orderInfoResultList: z.array(spotOrderRecord), ...paging }),
  S2: z.looseObject({ fillsOrderResultList: z.array(spotFillRecord), ...paging }),
  S3: z.array(spotOrderRecord),
  S4: spotCancelResult,
  S5: spotCancelResult,
  S6: z.looseObject({ resultList: z.array(z.looseObject({ orderId: long, clientOrderId: opt(z.string().nullable()) })) }),
  S7: z.array(spotSymbolInfo),
  S8: z.array(spotAsset),
  S9: z.array(spotPublicTrade),
  S10: z.array(candleRow),
  S11: spotTicker,
  S13: orderBook,
  S15: z.looseObject({ orderInfoResultList: z.array(spotOrderRecord), ...loosePaging }),
  S0: z.union([z.number().int(), z.string().regex(/^\d+$/)]),
  F1: z.array(futuresContract),
  F2: z.array(futuresTicker),
  F3: futuresAccountList,
  F4: z.array(futuresPosition),
  F5: z.array(futuresOrder),
  F6: futuresBatchPlace,
  F7: futuresBatchCancel,
  F8: futuresPlacedOrder,
  F9: futuresCancelPlan,
  F10: z.array(candleRow),
  F11: z.array(candleRow),
  F12: futuresTicker,
  F13: orderBook,
  F14: z.array(fundingRateRecord),
  F15: z.looseObject({ symbol: str, fundingTime: timeMs }),
  F16: z.array(fundingSettlementRecord),
  F17: z.looseObject({ symbol: str, index: decStr, timestamp: timeMs }),
  F18: futuresOrder,
  F19: z.array(futuresOrder),
  F20: z.looseObject({ list: z.array(futuresFillRecord), nextFlag: opt(z.boolean().nullable()), totals: opt(z.number().nullable()) }),
  F21: z.array(futuresPlanRecord),
  F22: z.looseObject({ list: z.array(futuresPlanRecord), nextPage: opt(z.boolean().nullable()) }),
  F23: tpSlPlaced,
  F24: tpSlModified,
  F25: futuresPlacedOrder,
  F26: futuresCanceledOrder,
  F27: closedPositions,
  F28: canceledAll,
  F29: z.array(futuresPosition),
  F30: ledgerPage,
  F0: z.looseObject({ epoch: opt(str), iso: opt(str), timestamp: z.number().int() }),
} satisfies Record<EndpointId, z.ZodType>;

export type ResponseOf<E extends EndpointId> = z.infer<(typeof RESPONSE_SCHEMAS)[E]>;
