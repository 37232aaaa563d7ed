// Market data records -> domain values: spot pairs and futures contracts as instruments, tickers, public trades.
import { describe, expect, it } from '@jest/globals';
import { ParseContext } from '../../../../src/exchange/live/parse-context.js';
import { futuresInstrument, publicTrade, spotInstrument, ticker } from '../../../../src/exchange/live/parse-market.js';
import type { WireContract, WireSpotSymbol, WireSpotTrade, WireTicker } from '../../../../src/exchange/wire/responses.js';
import { shown } from '../../../../src/util/shown.js';

const str = (v: unknown) => (v === null ? null : shown(v));

const contract = (fields: Partial<WireContract>): WireContract =>
  ({
    symbol: 'cmt_solusdt',
    underlying_index: 'SOL',
    quote_currency: 'USDT',
    size_increment: '1',
    tick_size: '3',
    priceEndStep: 5,
    makerFeeRate: '0.0002',
    takerFeeRate: '0.0006',
    minOrderSize: '0.1',
    maxOrderSize: '100000',
    maxPositionSize: '1000000',
    contract_val: '0.1',
    minLeverage: 1,
    maxLeverage: 50,
    ...fields,
  }) as WireContract;

describe('instruments', () => {
  it('spot pairs give steps as decimals', () => {
    const ctx = new ParseContext('S7');
    const inst = spotInstrument(
      ctx,
      {
        symbol: 'BTCUSDT_SPBL',
        baseCoin: 'BTC',
        quoteCoin: 'USDT',
        tickSize: '0.1',
        stepSize: '0.000001',
        minTradeAmount: '0.00001',
        maxTradeAmount: '',
        takerFeeRate: '0.001',
        makerFeeRate: '0.0008',
        buyLimitPriceRatio: '0.05',
        enableTrade: true,
      } as WireSpotSymbol,
      0,
    );
    expect(
      [inst.tickSize, inst.stepSize, inst.minSize, inst.maxSize, inst.makerFeeRate, inst.takerFeeRate, inst.buyLimitPriceRatio, inst.sellLimitPriceRatio].map(
        str,
      ),
    ).toEqual(['0.1', '0.000001', '0.00001', null, '0.0008', '0.001', '0.05', null]);
    expect(inst).toMatchObject({ surface: 'spot', base: 'BTC', quote: 'USDT', tradingEnabled: true, contractValue: null, maxLeverage: null });
  });

  it('futures contracts give steps as decimal places, the tick times priceEndStep', () => {
    const inst = futuresInstrument(new ParseContext('F1'), contract({}), 0);
    expect([inst.tickSize, inst.stepSize, inst.contractValue, inst.maxPositionSize].map(str)).toEqual(['0.005', '0.1', '0.1', '1000000']);
    expect(inst).toMatchObject({ surface: 'futures', base: 'SOL', minLeverage: 1, maxLeverage: 50 });
    expect(str(futuresInstrument(new ParseContext('F1'), contract({ tick_size: '0.01', priceEndStep: undefined }), 0).tickSize)).toBe('0.01');
  });

  it('takes contract_val "0" as unknown, and fails on a bad step naming the field', () => {
    expect(futuresInstrument(new ParseContext('F1'), contract({ contract_val: '0' }), 0).contractValue).toBeNull();
    expect(() => futuresInstrument(new ParseContext('F1'), contract({ tick_size: '-1' }), 2)).toThrow('[2].tick_size: not a count of decimal places: "-1"');
    expect(() => futuresInstrument(new ParseContext('F1'), contract({ priceEndStep: 0 }), 1)).toThrow('[1].priceEndStep: must be at least 1, got 0');
    expect(() => futuresInstrument(new ParseContext('F1'), contract({ makerFeeRate: '' }), 4)).toThrow('[4].makerFeeRate: a value is required');
  });
});

describe('tickers and public trades', () => {
  it('a ticker with a zero bid keeps the bid unknown and says so', () => {
    const ctx = new ParseContext('F2');
    const t = ticker(
      ctx,
      {
        symbol: 'cmt_btcusdt',
        last: '90755.3',
        best_bid: '0',
        best_ask: '90755.4',
        high_24h: '91130.0',
        low_24h: '',
        timestamp: '1764482511864',
      } as WireTicker,
      3,
    );
    expect([t.last, t.bestBid, t.bestAsk, t.high24h, t.low24h, t.markPrice].map(str)).toEqual(['90755.3', null, '90755.4', '91130', null, null]);
    expect(t.timestampMs).toBe(1764482511864);
    expect(ctx.anomalies.map((a) => a.field)).toEqual(['[3].best_bid']);
    expect(() => ticker(ctx, { symbol: 'x', last: '1', best_bid: '1', best_ask: '1', timestamp: 'now' } as unknown as WireTicker, 0)).toThrow(
      '[0].timestamp: not a millisecond timestamp: "now"',
    );
  });

  it('a trade with a non-positive size is dropped and reported', () => {
    const ctx = new ParseContext('S9');
    const base = { symbol: 'BTCUSDT_SPBL', tradeId: 't1', fillTime: '1764482511864', fillPrice: '90000.1', fillQuantity: '0.5', buyerMaker: true };
    expect(publicTrade(ctx, base as WireSpotTrade, 0)).toMatchObject({ tradeId: 't1', timestampMs: 1764482511864, buyerMaker: true });
    expect(publicTrade(ctx, { ...base, fillQuantity: '0' } as WireSpotTrade, 1)).toBeNull();
    expect(ctx.anomalies).toEqual([{ endpoint: 'S9', field: 'data[1].fillQuantity', value: '0', note: 'trade with a non-positive price or size dropped' }]);
  });
});
