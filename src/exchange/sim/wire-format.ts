// Engine state -> the venue's wire shapes (spot records, futures records), exactly as the venue formats them.
import { Decimal } from '../../domain/decimal.js';
import type { Fill } from '../../domain/market.js';
import { TIF_NAME, futuresTypeName } from '../wire/enums.js';
import { JsonBigInt } from '../wire/json.js';
import type { FuturesFillDetail, MatchingEngine, SimOrder } from './engine.js';
import type { SimInstrumentSpec } from './instruments.js';

const s = (d: Decimal | null | undefined): string => (d ? d.toString() : '0');

/** Spot status strings: "open" is confirmed; the others are what clients of the venue report seeing. */
function spotStatus(o: SimOrder): string {
  switch (o.status) {
    case 'filled':
      return 'full_fill';
    case 'canceled':
      return 'cancelled';
    default:
      return o.filledSteps > 0 ? 'partial_fill' : 'open';
  }
}

export function spotOrderRecord(engine: MatchingEngine, o: SimOrder): Record<string, unknown> {
  const order = engine.toOrder(o);
  const fills = engine.fills(o.symbol, o.orderId);
  let max: Decimal | null = null;
  let min: Decimal | null = null;
  for (const f of fills) {
    if (!max || f.price.gt(max)) max = f.price;
    if (!min || f.price.lt(min)) min = f.price;
  }
  return {
    accountId: '590105411156181178',
    symbol: o.symbol,
    orderId: o.orderId,
    clientOrderId: o.clientOid,
    price: s(order.price),
    quantity: order.size.toString(),
    orderType: o.kind,
    side: o.side,
    status: spotStatus(o),
    latestFillPrice: s(fills[0]?.price),
    maxFillPrice: s(max),
    minFillPrice: s(min),
    fillQuantity: order.filledSize.toString(),
    fillTotalAmount: o.filledValue.toString(),
    cTime: String(o.createdAt),
    uTime: String(o.updatedAt),
  };
}

export function spotFillRecord(spec: SimInstrumentSpec, f: Fill): Record<string, unknown> {
  return {
    accountId: '590105411156181178',
    symbol: f.symbol,
    baseCoin: spec.base,
    quoteCoin: spec.quote,
    orderId: f.orderId,
    fillId: f.fillId,
    orderType: '',
    side: f.side,
    fillPrice: f.price.toString(),
    fillQuantity: f.size.toString(),
    fillTotalAmount: f.amount.toString(),
    fees: f.fee.toString(),
    cTime: String(f.timestampMs),
  };
}

export function spotSymbolInfo(spec: SimInstrumentSpec): Record<string, unknown> {
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

export function futuresContract(spec: SimInstrumentSpec): Record<string, unknown> {
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


export function futuresOrderRecord(engine: MatchingEngine, spec: SimInstrumentSpec, o: SimOrder): Record<string, unknown> {
  const order = engine.toOrder(o);
  const cv = spec.contractValue ? Decimal.from(spec.contractValue) : null;
  return {
    symbol: o.symbol,
    size: order.size.toString(),
    client_oid: o.clientOid,
    createTime: String(o.createdAt),
    filled_qty: order.filledSize.toString(),
    fee: o.fee.toString(),
    order_id: o.orderId,
    // A market order reads back with price 0.
    price: o.priceTicks === null ? '0' : s(order.price),
    price_avg: s(order.avgFillPrice),
    status: o.status,
    type: futuresTypeName({ positionSide: o.positionSide!, reduceOnly: o.reduceOnly }),
    order_type: TIF_NAME[o.tif],
    totalProfits: '0',
    contracts: cv ? order.size.steps(cv, 'down') : 0,
    filledQtyContracts: cv ? order.filledSize.steps(cv, 'down') : 0,
    presetTakeProfitPrice: null,
    presetStopLossPrice: null,
  };
}

/**
 * An F20 fill record, with the field meanings of the venue's WS fill channel (direction MAKER/TAKER; liquidateFee a
 * decimal); tradeId and orderId as raw JSON numbers. realizePnl only on closing fills, as the venue documents.
 */
export function futuresFillRecord(f: Fill, d: FuturesFillDetail | undefined): Record<string, unknown> {
  return {
    tradeId: rawLong(f.fillId),
    orderId: rawLong(f.orderId),
    symbol: f.symbol,
    marginMode: 'SHARED',
    separatedMode: 'COMBINED',
    positionSide: d ? d.positionSide.toUpperCase() : 'UNKNOWN',
    orderSide: f.side.toUpperCase(),
    fillSize: f.size.toString(),
    fillValue: f.amount.toString(),
    fillFee: f.fee.toString(),
    liquidateFee: '0',
    ...(d?.realizedPnl ? { realizePnl: d.realizedPnl.toString() } : {}),
    ...(d ? { direction: d.taker ? 'TAKER' : 'MAKER', legacyOrdeDirection: futuresTypeName(d).toUpperCase() } : {}),
    createdTime: f.timestampMs,
  };
}

export function futuresPositionRecord(engine: MatchingEngine, symbol: string, contractId: number, inAccountList: boolean): Array<Record<string, unknown>> {
  return engine.positions(symbol).map((p) => {
    const id = (v: number | string) => (inAccountList ? String(v) : v);
    return {
      id: id(contractId * 10 + (p.side === 'long' ? 1 : 2)),
      account_id: id(1),
      coin_id: 2,
      contract_id: contractId,
      ...(inAccountList ? {} : { symbol }),
      side: p.side === 'long' ? 'LONG' : 'SHORT',
      margin_mode: 'SHARED',
      separated_mode: 'COMBINED',
      separated_open_order_id: id(0),
      leverage: s(p.leverage),
      size: p.size.toString(),
      open_value: p.openValue.toString(),
      open_fee: s(p.openFee),
      funding_fee: '0',
      isolated_margin: '0',
      is_auto_append_isolated_margin: false,
      cum_open_size: p.size.toString(),
      cum_open_value: p.openValue.toString(),
      cum_open_fee: s(p.openFee),
      cum_close_size: '0',
      cum_close_value: '0',
      cum_close_fee: '0',
      cum_funding_fee: '0',
      cum_liquidate_fee: '0',
      created_match_sequence_id: id(0),
      updated_match_sequence_id: id(0),
      created_time: id(p.updatedAtMs ?? 0),
      updated_time: id(p.updatedAtMs ?? 0),
    };
  });
}

/** S6 answers carry orderId as a raw JSON number (beyond 2^53): JsonBigInt keeps it exact on the way out. */
export function rawLong(id: string): JsonBigInt {
  return new JsonBigInt(id);
}
