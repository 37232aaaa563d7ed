// Market data records -> domain values: spot pairs (S7) and futures contracts (F1) as instruments, tickers
// (futures F2 / F12, spot S11), spot public trades (S9), order books (S13 / F13), funding rates (F14, F16) and
// index or mark prices (F17).
import { Decimal } from '../../domain/decimal.js';
import type { BookLevel, FundingRate, FundingSettlement, Instrument, OrderBook, PriceIndex, PublicTrade, Ticker } from '../../domain/market.js';
import type {
  WireContract,
  WireFundingRate,
  WireFundingSettlement,
  WireOrderBook,
  WireSpotSymbol,
  WireSpotTicker,
  WireSpotTrade,
  WireTicker,
} from '../wire/responses.js';
import { fieldsAt, type FieldNamer, type ParseContext } from './parse-context.js';

/** "4" (decimal places, as futures contracts give it) or "0.0001" (a step) -> the step. */
function stepFrom(ctx: ParseContext, field: string, text: string, unit: Decimal = Decimal.of(1n)): Decimal {
  if (text.includes('.')) return ctx.positive(field, text);
  const places = Number(text);
  if (!Number.isInteger(places) || places < 0 || places > 30) ctx.fail(field, `not a count of decimal places: ${JSON.stringify(text)}`);
  return unit.mul(Decimal.of(1n, places));
}

/** Fee rates and the limit-price band, spelled alike by spot pairs and futures contracts. */
function feesAndBand(
  ctx: ParseContext,
  field: FieldNamer,
  record: Pick<WireSpotSymbol & WireContract, 'makerFeeRate' | 'takerFeeRate' | 'buyLimitPriceRatio' | 'sellLimitPriceRatio'>,
): Pick<Instrument, 'makerFeeRate' | 'takerFeeRate' | 'buyLimitPriceRatio' | 'sellLimitPriceRatio'> {
  return {
    makerFeeRate: ctx.dec(field('makerFeeRate'), record.makerFeeRate),
    takerFeeRate: ctx.dec(field('takerFeeRate'), record.takerFeeRate),
    buyLimitPriceRatio: ctx.decOpt(record.buyLimitPriceRatio),
    sellLimitPriceRatio: ctx.decOpt(record.sellLimitPriceRatio),
  };
}

export function spotInstrument(ctx: ParseContext, record: WireSpotSymbol, i: number): Instrument {
  const field = fieldsAt(`data[${i}]`);
  return {
    surface: 'spot',
    symbol: record.symbol,
    base: record.baseCoin,
    quote: record.quoteCoin,
    tickSize: ctx.positive(field('tickSize'), record.tickSize),
    stepSize: ctx.positive(field('stepSize'), record.stepSize),
    minSize: ctx.dec(field('minTradeAmount'), record.minTradeAmount),
    maxSize: ctx.decOpt(record.maxTradeAmount),
    ...feesAndBand(ctx, field, record),
    tradingEnabled: record.enableTrade,
    contractValue: null,
    maxPositionSize: null,
    minLeverage: null,
    maxLeverage: null,
  };
}

export function futuresInstrument(ctx: ParseContext, record: WireContract, i: number): Instrument {
  const field = fieldsAt(`[${i}]`);
  const endStep = record.priceEndStep === undefined ? 1n : BigInt(typeof record.priceEndStep === 'number' ? record.priceEndStep : Number(record.priceEndStep));
  if (endStep < 1n) ctx.fail(field('priceEndStep'), `must be at least 1, got ${String(record.priceEndStep)}`);
  return {
    surface: 'futures',
    symbol: record.symbol,
    base: record.underlying_index,
    quote: record.quote_currency,
    tickSize: stepFrom(ctx, field('tick_size'), record.tick_size, Decimal.of(endStep)),
    stepSize: stepFrom(ctx, field('size_increment'), record.size_increment),
    minSize: ctx.dec(field('minOrderSize'), record.minOrderSize),
    maxSize: ctx.decOpt(record.maxOrderSize),
    ...feesAndBand(ctx, field, record),
    tradingEnabled: true,
    // contract_val "0" appears in official samples: unknown, not a zero-sized contract.
    contractValue: knownContractValue(ctx.decOpt(record.contract_val)),
    maxPositionSize: ctx.decOpt(record.maxPositionSize),
    minLeverage: record.minLeverage ?? null,
    maxLeverage: record.maxLeverage ?? null,
  };
}

function knownContractValue(value: Decimal | null): Decimal | null {
  return value && !value.isZero() ? value : null;
}

/** A futures ticker: an item of F2 (`at` its index) or F12's bare object (`at` ""). */
export function ticker(ctx: ParseContext, record: WireTicker, at: number | string): Ticker {
  const ts = ctx.time(record.timestamp);
  const field = fieldsAt(typeof at === 'number' ? `[${at}]` : at);
  return {
    symbol: record.symbol,
    last: ctx.priceOpt(field('last'), record.last),
    bestBid: ctx.priceOpt(field('best_bid'), record.best_bid),
    bestAsk: ctx.priceOpt(field('best_ask'), record.best_ask),
    markPrice: ctx.priceOpt(field('markPrice'), record.markPrice),
    indexPrice: ctx.priceOpt(field('indexPrice'), record.indexPrice),
    high24h: ctx.decOpt(record.high_24h),
    low24h: ctx.decOpt(record.low_24h),
    volume24h: ctx.decOpt(record.volume_24h),
    baseVolume24h: ctx.decOpt(record.base_volume),
    timestampMs: ts ?? ctx.fail(field('timestamp'), `not a millisecond timestamp: ${JSON.stringify(record.timestamp)}`),
  };
}

/** A public trade, or null (reported) when its price or size is not above zero: such a trade is dropped. */
export function publicTrade(ctx: ParseContext, record: WireSpotTrade, i: number): PublicTrade | null {
  const field = fieldsAt(`data[${i}]`);
  const price = ctx.dec(field('fillPrice'), record.fillPrice);
  const size = ctx.dec(field('fillQuantity'), record.fillQuantity);
  if (!price.gt(Decimal.ZERO) || !size.gt(Decimal.ZERO)) {
    const [name, value] = price.gt(Decimal.ZERO) ? ['fillQuantity', record.fillQuantity] : ['fillPrice', record.fillPrice];
    ctx.report(field(name), value, 'trade with a non-positive price or size dropped');
    return null;
  }
  return {
    symbol: record.symbol,
    tradeId: record.tradeId,
    timestampMs: ctx.time(record.fillTime) ?? ctx.fail(field('fillTime'), 'not a millisecond timestamp'),
    price,
    size,
    buyerMaker: record.buyerMaker,
  };
}

/**
 * A spot pair's ticker (S11): last price and 24 h figures (volume24h the quote turnover `value`, baseVolume24h the
 * base `size`). The venue's spot ticker has no bid or ask, and its mark and index prices ("0") are no prices.
 */
export function spotTicker(ctx: ParseContext, record: WireSpotTicker): Ticker {
  return {
    symbol: record.symbol,
    last: ctx.priceOpt('data.lastPrice', record.lastPrice),
    bestBid: null,
    bestAsk: null,
    markPrice: null,
    indexPrice: null,
    high24h: ctx.decOpt(record.high),
    low24h: ctx.decOpt(record.low),
    volume24h: ctx.decOpt(record.value),
    baseVolume24h: ctx.decOpt(record.size),
    timestampMs: ctx.time(record.ts) ?? ctx.fail('data.ts', `not a millisecond timestamp: ${JSON.stringify(record.ts)}`),
  };
}

/**
 * An order book (S13 at `data`, F13 at ""): every level's price above zero and size known, bids best (highest)
 * first, asks best (lowest) first, at most `limit` a side. Without the venue's timestamp (the spot field table has
 * none) the book is stamped `receivedAtMs`.
 */
export function orderBook(ctx: ParseContext, record: WireOrderBook, path: string, symbol: string, limit: number, receivedAtMs: number): OrderBook {
  const field = fieldsAt(path);
  const levels = (side: 'bids' | 'asks'): BookLevel[] =>
    record[side].map(([price, size], i) => ({
      price: ctx.positive(`${field(side)}[${i}][0]`, price),
      size: nonNegative(ctx, `${field(side)}[${i}][1]`, size),
    }));
  const bids = levels('bids')
    .sort((a, b) => b.price.cmp(a.price))
    .slice(0, limit);
  const asks = levels('asks')
    .sort((a, b) => a.price.cmp(b.price))
    .slice(0, limit);
  return {
    symbol,
    bids,
    asks,
    timestampMs: record.timestamp === undefined ? receivedAtMs : (ctx.time(record.timestamp) ?? ctx.fail(field('timestamp'), 'not a millisecond timestamp')),
  };
}

/** A decimal that must be known and not negative (sizes and volumes). */
export function nonNegative(ctx: ParseContext, field: string, text: string | undefined): Decimal {
  const value = ctx.dec(field, text);
  return value.isNegative() ? ctx.fail(field, `must not be negative, got ${JSON.stringify(text)}`) : value;
}

/** A current funding rate (F14). The rate must be known: "" is no rate, never 0. */
export function fundingRate(ctx: ParseContext, record: WireFundingRate, i: number): FundingRate {
  const field = fieldsAt(`[${i}]`);
  const cycleMinutes = Number(record.collectCycle);
  if (!Number.isSafeInteger(cycleMinutes) || cycleMinutes <= 0)
    ctx.fail(field('collectCycle'), `must be a positive count of minutes, got ${JSON.stringify(record.collectCycle)}`);
  return {
    symbol: record.symbol,
    rate: ctx.dec(field('fundingRate'), record.fundingRate),
    cycleMinutes,
    timestampMs: ctx.time(record.timestamp) ?? ctx.fail(field('timestamp'), 'not a millisecond timestamp'),
  };
}

/** A settled funding rate (F16). */
export function fundingSettlement(ctx: ParseContext, record: WireFundingSettlement, i: number): FundingSettlement {
  const field = fieldsAt(`[${i}]`);
  return {
    symbol: record.symbol,
    rate: ctx.dec(field('fundingRate'), record.fundingRate),
    fundingTimeMs: ctx.time(record.fundingTime) ?? ctx.fail(field('fundingTime'), 'not a millisecond timestamp'),
  };
}

/** An index or mark price (F17): the venue answers either in the field `index`. */
export function priceIndex(ctx: ParseContext, record: { symbol: string; index: string; timestamp: number | string }, kind: PriceIndex['kind']): PriceIndex {
  return {
    symbol: record.symbol,
    kind,
    price: ctx.positive('index', record.index),
    timestampMs: ctx.time(record.timestamp) ?? ctx.fail('timestamp', 'not a millisecond timestamp'),
  };
}
