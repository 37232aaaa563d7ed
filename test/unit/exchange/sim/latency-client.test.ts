// Network time in virtual time: a request reaches the simulator one way after it is sent, with the market as
// it is then, and its answer arrives one way later.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../../src/domain/decimal.js';
import type { ExchangeClient } from '../../../../src/exchange/client.js';
import { LatencyClient } from '../../../../src/exchange/sim/latency-client.js';
import { DEFAULT_INSTRUMENTS } from '../../../../src/exchange/sim/instruments.js';
import { ReplayMarket } from '../../../../src/exchange/sim/market.js';
import { SimulatedExchange } from '../../../../src/exchange/sim/simulated-exchange.js';
import { VirtualClock } from '../../../../src/util/clock.js';

describe('LatencyClient', () => {
  it('a market order placed at t fills at the price of t + out, and the answer comes at t + out + back', async () => {
    const records = [0, 1, 2, 3].map((k) => ({ ts: 1000 + k * 10, symbol: 'BTCUSDT_SPBL', price: `${90000 + k * 100}`, size: '1' }));
    const market = new ReplayMarket(DEFAULT_INSTRUMENTS, records);
    const clock = new VirtualClock(1000);
    const sim = new SimulatedExchange(market, { spot: { USDT: '1000000', BTC: '0' }, futuresCollateral: '0', leverage: 1 }, undefined, clock);
    const fills: Array<{ price: string; at: number }> = [];
    sim.engine.onFill = (f) => fills.push({ price: f.price.toString(), at: clock.now() });
    const client = new LatencyClient(sim, 15, 7, clock);
    sim.advanceTo(1000);
    let answeredAt = -1;
    void client
      .placeOrders('spot', 'BTCUSDT_SPBL', [{ clientOid: 'a', side: 'buy', kind: 'market', timeInForce: 'ioc', size: Decimal.from('0.001') }])
      .then(() => (answeredAt = clock.now()));
    // Drive: ticks and timers in time order.
    while (clock.nextAt() !== Number.POSITIVE_INFINITY || !market.done) {
      if (clock.nextAt() < market.nextTs) {
        clock.runNext();
        await new Promise<void>((r) => setImmediate(r));
      } else sim.advanceTo(market.nextTs);
    }
    // Sent at 1000; at 1015 the last trade was the one of 1010 (90100).
    expect(fills.map((f) => f.at)).toEqual(fills.map(() => 1015));
    expect(fills[0]!.price).toBe('90100');
    expect(answeredAt).toBe(1022);
  });

  it('a refused request, or one that throws as it is made, fails one way back after it reached the venue; nothing stays counted as waiting', async () => {
    const clock = new VirtualClock(1000);
    const asked: number[] = [];
    const inner = {
      ticker: () => {
        asked.push(clock.now());
        return Promise.reject(new Error('venue says no'));
      },
      depth: () => {
        asked.push(clock.now());
        throw new Error('no such book');
      },
    } as unknown as ExchangeClient;
    const client = new LatencyClient(inner, 15, 7, clock);
    const failed: Array<[string, number]> = [];
    void client.ticker('X').catch((e: Error) => failed.push([e.message, clock.now()]));
    void client.depth('Y').catch((e: Error) => failed.push([e.message, clock.now()]));
    expect(clock.sleeping).toBe(2);
    while (clock.nextAt() !== Number.POSITIVE_INFINITY) {
      clock.runNext();
      for (let k = 0; k < 5; k++) await Promise.resolve();
    }
    expect(asked).toEqual([1015, 1015]);
    expect(failed.sort()).toEqual([
      ['no such book', 1022],
      ['venue says no', 1022],
    ]);
    expect(clock.sleeping).toBe(0);
  });
});
