// The simulator's instruments: venue-shaped specs (decimal strings) with realistic defaults for a few pairs.
import { Decimal } from '../../domain/decimal.js';
import type { Instrument, Surface } from '../../domain/market.js';

export interface SimInstrumentSpec {
  surface: Surface;
  symbol: string;
  base: string;
  quote: string;
  /** Decimal places of price and size (futures publish them as places; spot as steps). */
  priceDecimals: number;
  sizeDecimals: number;
  /** Futures: the last price digit moves in steps of this (tick = priceEndStep × 10^-priceDecimals). */
  priceEndStep: number;
  minSize: string;
  maxSize: string;
  makerFeeRate: string;
  takerFeeRate: string;
  /** Allowed distance of a limit price from the market (0.05 = 5 %). */
  limitPriceRatio: string;
  /** Futures only. */
  contractValue?: string;
  maxPositionSize?: string;
  maxLeverage?: number;
  /** Start price of the synthetic market, and its volatility per tick in basis points. */
  startPrice: string;
  volBps: number;
  /**
   * Futures: minutes between funding settlements (the venue's `collectCycle`, 480 when absent) and the minutes past
   * each multiple of it from 00:00 UTC at which they fall (0 when absent).
   */
  fundingIntervalMinutes?: number;
  fundingOffsetMinutes?: number;
}

export const DEFAULT_INSTRUMENTS: SimInstrumentSpec[] = [
  {
    surface: 'spot',
    symbol: 'BTCUSDT_SPBL',
    base: 'BTC',
    quote: 'USDT',
    priceDecimals: 1,
    sizeDecimals: 6,
    priceEndStep: 1,
    minSize: '0.00001',
    maxSize: '100',
    makerFeeRate: '0.001',
    takerFeeRate: '0.001',
    limitPriceRatio: '0.05',
    startPrice: '90000',
    volBps: 2,
  },
  {
    surface: 'spot',
    symbol: 'ETHUSDT_SPBL',
    base: 'ETH',
    quote: 'USDT',
    priceDecimals: 2,
    sizeDecimals: 4,
    priceEndStep: 1,
    minSize: '0.001',
    maxSize: '1000',
    makerFeeRate: '0.001',
    takerFeeRate: '0.001',
    limitPriceRatio: '0.05',
    startPrice: '3000',
    volBps: 3,
  },
  {
    surface: 'spot',
    symbol: 'SOLUSDT_SPBL',
    base: 'SOL',
    quote: 'USDT',
    priceDecimals: 3,
    sizeDecimals: 2,
    priceEndStep: 1,
    minSize: '0.01',
    maxSize: '10000',
    makerFeeRate: '0.001',
    takerFeeRate: '0.001',
    limitPriceRatio: '0.05',
    startPrice: '140',
    volBps: 4,
  },
  {
    surface: 'futures',
    symbol: 'cmt_btcusdt',
    base: 'BTC',
    quote: 'USDT',
    priceDecimals: 1,
    sizeDecimals: 4,
    priceEndStep: 1,
    minSize: '0.0001',
    maxSize: '1200',
    makerFeeRate: '0.0002',
    takerFeeRate: '0.0006',
    limitPriceRatio: '0.05',
    contractValue: '0.0001',
    maxPositionSize: '1000000',
    maxLeverage: 125,
    startPrice: '90000',
    volBps: 2,
    fundingIntervalMinutes: 480,
    fundingOffsetMinutes: 0,
  },
  {
    surface: 'futures',
    symbol: 'cmt_ethusdt',
    base: 'ETH',
    quote: 'USDT',
    priceDecimals: 2,
    sizeDecimals: 3,
    priceEndStep: 1,
    minSize: '0.001',
    maxSize: '10000',
    makerFeeRate: '0.0002',
    takerFeeRate: '0.0006',
    limitPriceRatio: '0.05',
    contractValue: '0.001',
    maxPositionSize: '1000000',
    maxLeverage: 100,
    startPrice: '3000',
    volBps: 3,
    fundingIntervalMinutes: 480,
    fundingOffsetMinutes: 0,
  },
  {
    surface: 'futures',
    symbol: 'cmt_solusdt',
    base: 'SOL',
    quote: 'USDT',
    priceDecimals: 3,
    sizeDecimals: 1,
    priceEndStep: 5,
    minSize: '0.1',
    maxSize: '100000',
    makerFeeRate: '0.0002',
    takerFeeRate: '0.0006',
    limitPriceRatio: '0.05',
    contractValue: '0.1',
    maxPositionSize: '1000000',
    maxLeverage: 50,
    startPrice: '140',
    volBps: 4,
    fundingIntervalMinutes: 480,
    fundingOffsetMinutes: 0,
  },
];

/** The normalised instrument a client sees for a spec. */
export function toInstrument(s: SimInstrumentSpec): Instrument {
  const ratio = Decimal.from(s.limitPriceRatio);
  return {
    surface: s.surface,
    symbol: s.symbol,
    base: s.base,
    quote: s.quote,
    tickSize: Decimal.of(BigInt(s.priceEndStep), s.priceDecimals),
    stepSize: Decimal.of(1n, s.sizeDecimals),
    minSize: Decimal.from(s.minSize),
    maxSize: Decimal.from(s.maxSize),
    makerFeeRate: Decimal.from(s.makerFeeRate),
    takerFeeRate: Decimal.from(s.takerFeeRate),
    buyLimitPriceRatio: ratio,
    sellLimitPriceRatio: ratio,
    tradingEnabled: true,
    contractValue: s.contractValue ? Decimal.from(s.contractValue) : null,
    maxPositionSize: s.maxPositionSize ? Decimal.from(s.maxPositionSize) : null,
    minLeverage: s.surface === 'futures' ? 1 : null,
    maxLeverage: s.maxLeverage ?? null,
  };
}

/** A simulator spec for an instrument read from the venue (dry-run): steps as decimal places, start price given. */
export function specFromInstrument(i: Instrument, startPrice: Decimal): SimInstrumentSpec {
  const ratio = i.buyLimitPriceRatio ?? Decimal.from('0.05');
  return {
    surface: i.surface,
    symbol: i.symbol,
    base: i.base,
    quote: i.quote,
    priceDecimals: i.tickSize.scale,
    priceEndStep: Number(i.tickSize.mantissa),
    sizeDecimals: i.stepSize.scale,
    minSize: i.minSize.toString(),
    maxSize: (i.maxSize ?? Decimal.from('1000000000')).toString(),
    makerFeeRate: i.makerFeeRate.toString(),
    takerFeeRate: i.takerFeeRate.toString(),
    limitPriceRatio: ratio.toString(),
    ...(i.contractValue ? { contractValue: i.contractValue.toString() } : {}),
    ...(i.maxPositionSize ? { maxPositionSize: i.maxPositionSize.toString() } : {}),
    ...(i.maxLeverage !== null ? { maxLeverage: i.maxLeverage } : {}),
    startPrice: startPrice.toString(),
    volBps: 1,
  };
}
