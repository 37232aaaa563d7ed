// Engine state -> the venue's wire shapes (spot records, futures records, market data), exactly as the venue
// formats them, each typed by its response schema.
import { Decimal } from '../../domain/decimal.js';
import type { Fill } from '../../domain/market.js';
import { TIF_CODE, TIF_NAME, futuresTypeCode, futuresTypeName } from '../wire/enums.js';
import { JsonBigInt } from '../wire/json.js';
import type {
  WireCandleRow,
  WireContract,
  WireFuturesFill,
  WireFuturesOrder,
  WireOrderBook,
  WirePlanOrder,
  WireSpotFill,
  WireSpotOrder,
  WireSpotSymbol,
  WireSpotTicker,
  WireTicker,
} from '../wire/responses.js';
import { depthOf, tickerOf, type Book } from './book.js';
import type { FuturesFillDetail, MatchingEngine, SimOrder } from './engine.js';
import type { SimInstrumentSpec } from './instruments.js';
import { toVenueCandle, type TickBar } from './tick-bar.js';

/** A decimal field the venue fills with "0" when there is no value. */
const orZero = (d: Decimal | null | undefined): string => (d ? d.toString() : '0');

/** Spot status strings: "open" is confirmed; the others are what clients of the venue report seeing. */
function spotStatus(order: SimOrder): string {
  switch (order.status) {
    case 'filled':
      return 'full_fill';
    case 'canceled':
      return 'cancelled';
    default:
      return order.filledSteps > 0 ? 'partial_fill' : 'open';
  }
}

export function spotOrderRecord(engine: MatchingEngine, simOrder: SimOrder): WireSpotOrder {
  const order = engine.toOrder(simOrder);
  const fills = engine.fills(simOrder.symbol, simOrder.orderId);
  let max: Decimal | null = null;
  let min: Decimal | null = null;
  for (const f of fills) {
    if (!max || f.price.gt(max)) max = f.price;
    if (!min || f.price.lt(min)) min = f.price;
  }
  return {
    accountId: '590105411156181178',
    symbol: simOrder.symbol,
    orderId: simOrder.orderId,
    clientOrderId: simOrder.clientOid,
    price: orZero(order.price),
    quantity: order.size.toString(),
    orderType: simOrder.kind,
    side: simOrder.side,
    status: spotStatus(simOrder),
    latestFillPrice: orZero(fills[0]?.price),
    maxFillPrice: orZero(max),
    minFillPrice: orZero(min),
    fillQuantity: order.filledSize.toString(),
    fillTotalAmount: simOrder.filledValue.toString(),
    cTime: String(simOrder.createdAtMs),
    uTime: String(simOrder.updatedAtMs),
  };
}

export function spotFillRecord(spec: SimInstrumentSpec, fill: Fill): WireSpotFill {
  return {
    accountId: '590105411156181178',
    symbol: fill.symbol,
    baseCoin: spec.base,
    quoteCoin: spec.quote,
    orderId: fill.orderId,
    fillId: fill.fillId,
    orderType: '',
    side: fill.side,
    fillPrice: fill.price.toString(),
    fillQuantity: fill.size.toString(),
    fillTotalAmount: fill.amount.toString(),
    fees: fill.fee.toString(),
    cTime: String(fill.timestampMs),
  };
}

export function spotSymbolInfo(spec: SimInstrumentSpec): WireSpotSymbol {
  return {
    symbol: spec.symbol,
    baseCoin: spec.base,
    quoteCoin: spec.quote,
    tickSize: Decimal.of(BigInt(spec.priceEndStep), spec.priceDecimals).toString(),
    stepSize: Decimal.of(1n, spec.sizeDecimals).toString(),
    minTradeAmount: spec.minSize,
    maxTradeAmount: spec.maxSize,
    takerFeeRate: spec.takerFeeRate,
    makerFeeRate: spec.makerFeeRate,
    buyLimitPriceRatio: spec.limitPriceRatio,
    sellLimitPriceRatio: spec.limitPriceRatio,
    marketBuyLimitSize: spec.maxSize,
    marketSellLimitSize: spec.maxSize,
    marketFallbackPriceRatio: '0',
    enableTrade: true,
    enableDisplay: true,
    displayDigitMerge: '',
    displayNew: false,
    displayHot: false,
    supportTracing: false,
    supportPlanMarket: true,
  };
}

export function futuresContract(spec: SimInstrumentSpec): WireContract {
  return {
    symbol: spec.symbol,
    underlying_index: spec.base,
    quote_currency: spec.quote,
    coin: spec.quote,
    contract_val: spec.contractValue ?? '0',
    listing: null,
    delivery: ['00:00:00', '08:00:00', '16:00:00'],
    size_increment: String(spec.sizeDecimals),
    tick_size: String(spec.priceDecimals),
    forwardContractFlag: true,
    priceEndStep: spec.priceEndStep,
    minLeverage: 1,
    maxLeverage: spec.maxLeverage ?? 100,
    buyLimitPriceRatio: spec.limitPriceRatio,
    sellLimitPriceRatio: spec.limitPriceRatio,
    makerFeeRate: spec.makerFeeRate,
    takerFeeRate: spec.takerFeeRate,
    minOrderSize: spec.minSize,
    maxOrderSize: spec.maxSize,
    maxPositionSize: spec.maxPositionSize ?? '1000000',
  };
}

export function futuresOrderRecord(engine: MatchingEngine, spec: SimInstrumentSpec, simOrder: SimOrder): WireFuturesOrder {
  const order = engine.toOrder(simOrder);
  const cv = spec.contractValue ? Decimal.from(spec.contractValue) : null;
  return {
    symbol: simOrder.symbol,
    size: order.size.toString(),
    client_oid: simOrder.clientOid,
    createTime: String(simOrder.createdAtMs),
    filled_qty: order.filledSize.toString(),
    fee: simOrder.fee.toString(),
    order_id: simOrder.orderId,
    // A market order reads back with price 0.
    price: simOrder.priceTicks === null ? '0' : orZero(order.price),
    price_avg: orZero(order.avgFillPrice),
    status: simOrder.status,
    // A liquidation close is the venue's burst_liquidate_long / burst_liquidate_short.
    type: simOrder.liquidation
      ? `burst_liquidate_${simOrder.positionSide!}`
      : futuresTypeName({ positionSide: simOrder.positionSide!, reduceOnly: simOrder.reduceOnly }),
    order_type: TIF_NAME[simOrder.tif],
    totalProfits: '0',
    contracts: cv ? order.size.steps(cv, 'down') : 0,
    filledQtyContracts: cv ? order.filledSize.steps(cv, 'down') : 0,
    presetTakeProfitPrice: null,
    presetStopLossPrice: null,
  };
}

/**
 * An F20 fill record, with the field meanings of the venue's WS fill channel (direction MAKER/TAKER; liquidateFee a
 * decimal); tradeId and orderId as raw JSON numbers. realizePnl only on closing fills, as the venue documents. A
 * liquidation close says liquidateType FORCE_LIQUIDATE, its fee (fillFee) being the liquidation fee (liquidateFee).
 */
export function futuresFillRecord(fill: Fill, detail: FuturesFillDetail | undefined): WireFuturesFill {
  return {
    tradeId: rawLong(fill.fillId),
    orderId: rawLong(fill.orderId),
    symbol: fill.symbol,
    marginMode: 'SHARED',
    separatedMode: 'COMBINED',
    positionSide: detail ? detail.positionSide.toUpperCase() : 'UNKNOWN',
    orderSide: fill.side.toUpperCase(),
    fillSize: fill.size.toString(),
    fillValue: fill.amount.toString(),
    fillFee: fill.fee.toString(),
    liquidateFee: orZero(detail?.liquidateFee),
    ...(detail?.liquidation ? { liquidateType: 'FORCE_LIQUIDATE' } : {}),
    ...(detail?.realizedPnl ? { realizePnl: detail.realizedPnl.toString() } : {}),
    ...(detail ? { direction: detail.taker ? 'TAKER' : 'MAKER', legacyOrdeDirection: futuresTypeName(detail).toUpperCase() } : {}),
    createdTime: fill.timestampMs,
  };
}

/** S6 answers carry orderId as a raw JSON number (beyond 2^53): JsonBigInt keeps it exact on the way out. */
export function rawLong(id: string): JsonBigInt {
  return new JsonBigInt(id);
}

/** A candle row: spot with the open time as a JSON number, futures as seven strings. */
export function candleRow(book: Book, bar: TickBar): WireCandleRow {
  const c = toVenueCandle(bar, book.inst.tickSize, book.inst.stepSize);
  const rest = [c.open, c.high, c.low, c.close, c.baseVolume, c.quoteVolume].map((d) => d.toString()) as [string, string, string, string, string, string];
  return [book.inst.surface === 'spot' ? bar.openMs : String(bar.openMs), ...rest];
}

/** The change since the day's first price as a ratio, six decimals ("-0.011451"); "0" before any tick. */
function changeRatio(book: Book): string {
  const first = book.firstTicks;
  return first > 0
    ? Decimal.fromInt(book.m.last - first)
        .div(Decimal.fromInt(first), 6)
        .toString()
    : '0';
}

/** A futures ticker (F2 item, F12). */
export function futuresTickerRecord(book: Book): WireTicker {
  const t = tickerOf(book, 'full');
  return {
    symbol: t.symbol,
    last: t.last!.toString(),
    best_ask: t.bestAsk!.toString(),
    best_bid: t.bestBid!.toString(),
    high_24h: t.high24h!.toString(),
    low_24h: t.low24h!.toString(),
    volume_24h: t.volume24h!.toString(),
    timestamp: String(t.timestampMs),
    priceChangePercent: changeRatio(book),
    base_volume: t.baseVolume24h!.toString(),
    markPrice: t.markPrice!.toString(),
    indexPrice: t.indexPrice!.toString(),
  };
}

/**
 * A spot ticker (S11): the "24 h" figures are those since the first tick (as F2's are), `ts` the time of the
 * latest tick (as F2's `timestamp`); mark, index and open interest "0" as the venue sends them for spot.
 */
export function spotTickerRecord(book: Book, nowMs: number): WireSpotTicker {
  const t = tickerOf(book, 'spot');
  const price = (ticks: number) => Decimal.ofSteps(ticks, book.inst.tickSize).toString();
  return {
    symbol: t.symbol,
    priceChange: price(book.m.last - book.firstTicks),
    priceChangePercent: changeRatio(book),
    trades: book.m.ticks,
    size: t.baseVolume24h!.toString(),
    value: t.volume24h!.toString(),
    high: t.high24h!.toString(),
    low: t.low24h!.toString(),
    open: price(book.firstTicks),
    close: t.last!.toString(),
    highTime: book.highTs,
    lowTime: book.lowTs,
    startTime: Math.max(0, book.firstTs),
    endTime: nowMs,
    lastPrice: t.last!.toString(),
    markPrice: '0',
    indexPrice: '0',
    openInterest: '0',
    ts: t.timestampMs,
  };
}

/** An order book `levels` deep (S13 / F13; see depthOf). */
export function depthRecord(book: Book, levels: number, nowMs: number): WireOrderBook {
  const { bids, asks } = depthOf(book, levels);
  const level = ([ticks, steps]: [number, number]): [string, string] => [
    Decimal.ofSteps(ticks, book.inst.tickSize).toString(),
    Decimal.ofSteps(steps, book.inst.stepSize).toString(),
  ];
  return { asks: asks.map(level), bids: bids.map(level), timestamp: String(nowMs) };
}

/** A trigger order's status digit: -1 canceled, 0 pending, 1 partially filled, 2 filled. */
export function planStatusCode(order: SimOrder): string {
  switch (order.status) {
    case 'filled':
      return '2';
    case 'canceled':
      return '-1';
    default:
      return order.filledSteps > 0 ? '1' : '0';
  }
}

/**
 * A trigger order (F21, F22): digits for status, type and order_type; execution at market reads back as price "0";
 * triggerTime "0" until it fires.
 */
export function planOrderRecord(engine: MatchingEngine, simOrder: SimOrder): WirePlanOrder {
  const order = engine.toOrder(simOrder);
  const inst = engine.instrument(simOrder.symbol)!;
  return {
    symbol: simOrder.symbol,
    size: order.size.toString(),
    client_oid: simOrder.clientOid,
    createTime: String(simOrder.createdAtMs),
    filled_qty: order.filledSize.toString(),
    fee: simOrder.fee.toString(),
    order_id: simOrder.orderId,
    price: simOrder.priceTicks === null ? '0' : orZero(order.price),
    price_avg: orZero(order.avgFillPrice),
    status: planStatusCode(simOrder),
    type: futuresTypeCode(simOrder.positionSide!, simOrder.reduceOnly),
    order_type: TIF_CODE[simOrder.tif],
    totalProfits: '0',
    triggerPrice: Decimal.ofSteps(simOrder.triggerTicks!, inst.tickSize).toString(),
    triggerPriceType: '',
    triggerTime: String(simOrder.firedAtMs ?? 0),
    presetTakeProfitPrice: null,
    presetStopLossPrice: null,
  };
}
