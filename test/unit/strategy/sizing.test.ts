// Order sizes from money, rounded down to the step (null below the minimum), equity from an update, and floats
// back to exact prices.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../src/domain/decimal.js';
import { DEFAULT_INSTRUMENTS, toInstrument } from '../../../src/exchange/sim/instruments.js';
import { decimalFromFloat, equityOf, priceFromFloat, sizeFromEquity, sizeFromQuote, sizeFromRisk, type MarketUpdate } from '../../../src/strategy/api.js';

const d = (s: string) => Decimal.from(s);
const text = (x: Decimal | null) => (x === null ? null : x.toString());
const inst = (step: string, min: string, max: string | null = null) => ({
  symbol: 'X',
  stepSize: d(step),
  minSize: d(min),
  maxSize: max === null ? null : d(max),
});

describe('sizing', () => {
  it('from a quote amount at a price: rounded down to the step, capped at maxSize, null below minSize', () => {
    expect(text(sizeFromQuote(d('100'), d('30000'), inst('0.0001', '0.0001')))).toBe('0.0033');
    expect(text(sizeFromQuote(d('99.99'), d('33.33'), inst('1', '1')))).toBe('3');
    expect(text(sizeFromQuote(d('20'), d('30000'), inst('0.0001', '0.001')))).toBeNull(); // 0.0006
    expect(text(sizeFromQuote(d('1'), d('30000'), inst('0.0001', '0')))).toBeNull(); // rounds to nothing
    expect(text(sizeFromQuote(d('0'), d('30000'), inst('0.0001', '0')))).toBeNull();
    expect(text(sizeFromQuote(d('1000000'), d('3'), inst('0.25', '1', '100.1')))).toBe('100');
    expect(() => sizeFromQuote(d('1'), d('0'), inst('1', '1'))).toThrow(/price 0 is not above 0/);
  });

  it('from a percent of equity: the order value, exact for float percents as written', () => {
    expect(text(sizeFromEquity(d('10000'), 2.5, d('2000'), inst('0.01', '0.01')))).toBe('0.12');
    expect(text(sizeFromEquity(d('10000'), d('2.5'), d('2000'), inst('0.001', '0.01')))).toBe('0.125');
    // 0.1 + 0.2 as a float is written 0.30000000000000004: read as written, then rounded down to the step.
    expect(text(sizeFromEquity(d('1000'), 0.1 + 0.2, d('1'), inst('0.0000000000000001', '0')))).toBe('3.0000000000000004');
    expect(text(sizeFromEquity(d('1000'), 0.1 + 0.2, d('1'), inst('0.001', '0')))).toBe('3');
  });

  it('from the risk to a stop: risk / |entry − stop|, never more risk than asked', () => {
    expect(text(sizeFromRisk(d('50'), d('2000'), d('1950'), inst('0.01', '0.01')))).toBe('1');
    expect(text(sizeFromRisk(d('50'), d('2000'), d('1930'), inst('0.01', '0.01')))).toBe('0.71');
    // A short: the stop above the entry.
    expect(text(sizeFromRisk(d('50'), d('2000'), d('2070'), inst('0.001', '0.001')))).toBe('0.714');
    expect(text(sizeFromRisk(d('0.5'), d('2000'), d('1000'), inst('0.001', '0.001')))).toBeNull();
    expect(() => sizeFromRisk(d('50'), d('2000'), d('2000'), inst('0.01', '0.01'))).toThrow(/the stop 2000 is the entry/);
  });

  it('equity from an update: USDT balances and the unrealised PnL of the positions at the last prices', () => {
    const instruments = new Map(DEFAULT_INSTRUMENTS.map((s) => [s.symbol, toInstrument(s)]));
    const ticker = (symbol: string, last: string) => ({
      symbol,
      last: d(last),
      bestBid: null,
      bestAsk: null,
      markPrice: null,
      indexPrice: null,
      high24h: null,
      low24h: null,
      volume24h: null,
      baseVolume24h: null,
      timestampMs: 0,
    });
    const update: MarketUpdate = {
      nowMs: 0,
      tickers: new Map([
        ['cmt_ethusdt', ticker('cmt_ethusdt', '2100')],
        ['ETHUSDT_SPBL', ticker('ETHUSDT_SPBL', '2000')],
      ]),
      openOrders: [],
      positions: [
        {
          symbol: 'cmt_ethusdt',
          side: 'long',
          size: d('0.1'),
          openValue: d('200'),
          entryPrice: d('2000'),
          leverage: null,
          marginMode: 'SHARED',
          isolatedMargin: null,
          openFee: null,
          fundingFee: null,
          updatedAtMs: null,
        },
      ],
      balances: [
        { surface: 'futures', asset: 'USDT', available: null, frozen: null, total: d('1000') },
        { surface: 'spot', asset: 'USDT', available: null, frozen: null, total: d('50.5') },
        { surface: 'spot', asset: 'ETH', available: null, frozen: null, total: d('0.25') },
      ],
    };
    expect(text(equityOf(update, instruments))).toBe('1560.5');
    expect(text(equityOf(update, instruments, 'futures'))).toBe('1010');
    expect(text(equityOf(update, instruments, 'spot'))).toBe('550.5');
    expect(equityOf({ ...update, tickers: new Map() }, instruments)).toBeNull();
  });

  it('floats back to exact decimals: as written, then rounded to the tick', () => {
    expect(decimalFromFloat(3000.1).toString()).toBe('3000.1');
    expect(decimalFromFloat(1e-7).toString()).toBe('0.0000001');
    expect(decimalFromFloat(-2.5e-8).toString()).toBe('-0.000000025');
    expect(decimalFromFloat(1.5e21).toString()).toBe('1500000000000000000000');
    expect(() => decimalFromFloat(Number.NaN)).toThrow(RangeError);
    const tick = { symbol: 'X', tickSize: d('0.5') };
    // The binary value of 3000.1 is a hair below it: read as written, rounding down keeps 3000.1 on a 0.1 tick.
    expect(priceFromFloat(3000.1, { symbol: 'X', tickSize: d('0.1') }, 'down').toString()).toBe('3000.1');
    expect(priceFromFloat(3000.2, tick, 'down').toString()).toBe('3000');
    expect(priceFromFloat(3000.2, tick, 'up').toString()).toBe('3000.5');
    expect(priceFromFloat(3000.25, tick, 'half-up').toString()).toBe('3000.5');
    expect(() => priceFromFloat(0.2, tick, 'down')).toThrow(/price 0.2 for X rounds to 0: not above 0/);
    expect(() => priceFromFloat(Number.POSITIVE_INFINITY, tick, 'down')).toThrow(RangeError);
  });
});
