// Simulator tickers: decimal fields built on first read, equal to the integer market state (index and mark at the
// last price with no basis configured); a spot pair's ticker carries its last trade only (what the daemon reads from S9)
// or, as S11 shows it, its last price and day figures without bid or ask; JSON sees every field.
import { describe, expect, it } from '@jest/globals';
import { DEFAULT_INSTRUMENTS } from '../../../../src/exchange/sim/instruments.js';
import { ReplayMarket } from '../../../../src/exchange/sim/market.js';
import { SimulatedExchange } from '../../../../src/exchange/sim/simulated-exchange.js';

describe('TickerSnapshot', () => {
  const records = [
    { ts: 1000, symbol: 'cmt_ethusdt', price: '3000.25', size: '0.5', bid: '3000.2', ask: '3000.3' },
    { ts: 1000, symbol: 'BTCUSDT_SPBL', price: '90000.1', size: '0.01' },
    { ts: 2000, symbol: 'cmt_ethusdt', price: '3001.5', size: '0.25', bid: '3001.4', ask: '3001.7' },
  ];
  const sim = new SimulatedExchange(new ReplayMarket(DEFAULT_INSTRUMENTS, records), { spot: { USDT: '1' }, futuresCollateral: '1', leverage: 1 });
  sim.advanceTo(2000);

  it('a futures ticker: prices, index and mark at the last price, high, low and volumes', () => {
    const t = sim.tickerNow('cmt_ethusdt')!;
    const plain = JSON.parse(JSON.stringify(t)) as Record<string, string | number | null>;
    expect(plain).toEqual({
      symbol: 'cmt_ethusdt',
      last: '3001.5',
      bestBid: '3001.4',
      bestAsk: '3001.7',
      markPrice: '3001.5',
      indexPrice: '3001.5',
      high24h: '3001.5',
      low24h: '3000.25',
      volume24h: '2250.5',
      baseVolume24h: '0.75',
      timestampMs: 2000,
    });
    // The same object answers the same values every time.
    expect(t.last).toBe(t.last);
  });

  it('a spot pair: its latest trade only', () => {
    const t = sim.tickerNow('BTCUSDT_SPBL')!;
    expect(t.last!.toString()).toBe('90000.1');
    expect([t.bestBid, t.bestAsk, t.markPrice, t.high24h, t.volume24h, t.baseVolume24h]).toEqual([null, null, null, null, null, null]);
    expect(t.timestampMs).toBe(1000);
  });

  it("a spot pair as S11 shows it: last price and the day's figures, no bid, ask, mark or index", async () => {
    const t = await sim.ticker('BTCUSDT_SPBL');
    expect(JSON.parse(JSON.stringify(t))).toEqual({
      symbol: 'BTCUSDT_SPBL',
      last: '90000.1',
      bestBid: null,
      bestAsk: null,
      markPrice: null,
      indexPrice: null,
      high24h: '90000.1',
      low24h: '90000.1',
      volume24h: '900.001',
      baseVolume24h: '0.01',
      timestampMs: 1000,
    });
  });
});
