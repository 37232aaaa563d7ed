// The three fill models of resting orders (sim.fills; docs/fills.md) on one fixed tape. On BTCUSDT_SPBL with bid
// 90000.0 / ask 90000.5 (a replay shows ten times a trade's size at the best levels), three orders rest:
//   A sell 0.5 at 90000.5, at the best ask: 10 BTC displayed ahead of it;
//   C buy 0.5 at 90000.2, inside the spread: nothing ahead of it;
//   D buy 0.5 at 90000.4, inside the spread too.
// Then 5 BTC trade at 90000.5 (five trades of 1) and 1 BTC at 90000.2: at C's price, and through D's.
// touch: A, C and D fill (a trade at an order's price fills it, as if it were first in line);
// queue: C (nothing ahead of it) and D (the market went through it); A's 10 ahead are not used up by 5;
// through: D only (a trade at a resting order's price never fills it).
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../../src/domain/decimal.js';
import type { FillModel } from '../../../../src/exchange/sim/book.js';
import { DEFAULT_INSTRUMENTS } from '../../../../src/exchange/sim/instruments.js';
import { ReplayMarket } from '../../../../src/exchange/sim/market.js';
import { SimulatedExchange } from '../../../../src/exchange/sim/simulated-exchange.js';
import { VirtualClock } from '../../../../src/util/clock.js';

const S = 'BTCUSDT_SPBL';

function tape() {
  let ts = 1000;
  const tick = (price: string, size = '1') => ({ ts: (ts += 10), symbol: S, price, size, bid: '90000.0', ask: '90000.5' });
  return [tick('90000.0'), ...Array.from({ length: 5 }, () => tick('90000.5')), tick('90000.2')];
}

/** The tape replayed under `model`: which orders filled, with each fill's size and price, in order. */
function run(model: FillModel): { filled: string[]; fills: string[] } {
  const records = tape();
  const market = new ReplayMarket(DEFAULT_INSTRUMENTS, records);
  const clock = new VirtualClock(records[0]!.ts);
  const sim = new SimulatedExchange(market, { spot: { USDT: '1000000', BTC: '10' }, futuresCollateral: '0', leverage: 1 }, undefined, clock);
  sim.engine.fillModel = model;
  const fills: string[] = [];
  sim.engine.onFill = (f) => fills.push(`${f.orderId} ${f.side} ${f.size.toString()} @ ${f.price.toString()}`);
  sim.advanceTo(records[0]!.ts);
  const names = new Map<string, string>();
  const orders = [
    ['A', 'sell', '90000.5'],
    ['C', 'buy', '90000.2'],
    ['D', 'buy', '90000.4'],
  ] as const;
  for (const [name, side, price] of orders) {
    const [out] = sim.engine.place('spot', S, [
      { clientOid: `sx_${name}`, side, kind: 'limit', timeInForce: 'gtc', price: Decimal.from(price), size: Decimal.from('0.5') },
    ]);
    if (!out?.ok) throw new Error(`order ${name} refused`);
    names.set(out.orderId, name);
  }
  for (const r of records.slice(1)) sim.advanceTo(r.ts);
  const filled = [...new Set(fills.map((f) => names.get(f.split(' ')[0]!)!))];
  return { filled, fills: fills.map((f) => `${names.get(f.split(' ')[0]!)} ${f.slice(f.indexOf(' ') + 1)}`) };
}

describe('fill models of resting orders, on one tape', () => {
  it('touch fills every order the market reached; queue those with nothing left ahead or gone through; through only those gone through', () => {
    expect(run('touch').filled).toEqual(['A', 'C', 'D']);
    expect(run('queue').filled).toEqual(['C', 'D']);
    expect(run('through').filled).toEqual(['D']);
  });

  it('a fill at the price is the trade there (touch, queue); through the price, the order fills whole at its own price', () => {
    expect(run('touch').fills).toEqual(['A sell 0.5 @ 90000.5', 'C buy 0.5 @ 90000.2', 'D buy 0.5 @ 90000.4']);
    expect(run('queue').fills).toEqual(['C buy 0.5 @ 90000.2', 'D buy 0.5 @ 90000.4']);
    expect(run('through').fills).toEqual(['D buy 0.5 @ 90000.4']);
  });

  it('queue: once the trades at its price have used up what was ahead, the order fills there', () => {
    // A buy at the best bid, 10 BTC ahead of it, then eleven trades of 1 at its price.
    const more = (model: FillModel) => {
      const records = [{ ts: 1010, symbol: S, price: '90000.0', size: '1', bid: '90000.0', ask: '90000.5' }];
      let ts = records.at(-1)!.ts;
      for (let k = 0; k < 11; k++) records.push({ ts: (ts += 10), symbol: S, price: '90000.0', size: '1', bid: '90000.0', ask: '90000.5' });
      const market = new ReplayMarket(DEFAULT_INSTRUMENTS, records);
      const clock = new VirtualClock(records[0]!.ts);
      const sim = new SimulatedExchange(market, { spot: { USDT: '1000000', BTC: '10' }, futuresCollateral: '0', leverage: 1 }, undefined, clock);
      sim.engine.fillModel = model;
      const at: number[] = [];
      sim.engine.onFill = () => at.push(clock.now());
      sim.advanceTo(records[0]!.ts);
      sim.engine.place('spot', S, [
        { clientOid: 'sx_A', side: 'buy', kind: 'limit', timeInForce: 'gtc', price: Decimal.from('90000.0'), size: Decimal.from('0.5') },
      ]);
      for (const r of records.slice(1)) sim.advanceTo(r.ts);
      return at.map((t) => records.findIndex((r) => r.ts === t));
    };
    // The order rests from the first record; trades 1..10 use up the 10 BTC ahead; the 11th fills it.
    expect(more('queue')).toEqual([11]);
    expect(more('touch')).toEqual([1]);
    expect(more('through')).toEqual([]);
  });

  it('each model is deterministic: the same tape gives the same fills', () => {
    for (const model of ['touch', 'queue', 'through'] as const) expect(run(model)).toEqual(run(model));
  });
});
