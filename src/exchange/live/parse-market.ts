// Market data records -> domain values: spot pairs (S7) and futures contracts (F1) as instruments, futures
// tickers (F2), spot public trades (S9).
import { Decimal } from '../../domain/decimal.js';
import type { Instrument, PublicTrade, Ticker } from '../../domain/market.js';
import type { WireContract, WireSpotSymbol, WireSpotTrade, WireTicker } from '../wire/responses.js';
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

export function ticker(ctx: ParseContext, record: WireTicker, i: number): Ticker {
  const ts = ctx.time(record.timestamp);
  const field = fieldsAt(`[${i}]`);
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
