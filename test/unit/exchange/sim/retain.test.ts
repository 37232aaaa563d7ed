// The simulator's history is bounded on request: old final orders and fills go, open orders never do.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../../src/domain/decimal.js';
import { MatchingEngine } from '../../../../src/exchange/sim/engine.js';
import { DEFAULT_INSTRUMENTS } from '../../../../src/exchange/sim/instruments.js';
import { SyntheticMarket } from '../../../../src/exchange/sim/market.js';
import { ManualClock } from '../../../../src/util/clock.js';

describe('simulator history bound', () => {
  it('keeps about `retain` final orders per symbol and every open one', () => {
    const clock = new ManualClock(0);
    const market = new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed: 1, startMs: 0, tickIntervalMs: 100 });
    const engine = new MatchingEngine(market.symbols, { spot: { USDT: '100000000', BTC: '100' }, futuresCollateral: '0', leverage: 1 }, clock, 10);
    const last = Decimal.fromInt(market.symbols[0]!.last).mul(Decimal.from('0.1'));
    const far = last.mul(Decimal.from('0.97')).roundToStep(Decimal.from('0.1'), 'down');
    const resting = engine.place('spot', 'BTCUSDT_SPBL', [
      { clientOid: 'keep', side: 'buy', kind: 'limit', timeInForce: 'gtc', price: far, size: Decimal.from('0.01') },
    ]);
    expect(resting[0]!.ok).toBe(true);
    for (let i = 0; i < 200; i++)
      engine.place('spot', 'BTCUSDT_SPBL', [
        { clientOid: `m${i}`, side: i % 2 ? 'buy' : 'sell', kind: 'market', timeInForce: 'ioc', size: Decimal.from('0.001') },
      ]);
    const history = engine.history('BTCUSDT_SPBL');
    expect(history.length).toBeLessThanOrEqual(21);
    expect(history.some((o) => o.clientOid === 'keep')).toBe(true);
    expect(engine.openOrders('spot', 'BTCUSDT_SPBL').map((o) => o.clientOid)).toEqual(['keep']);
    expect(engine.fills('BTCUSDT_SPBL').length).toBeLessThanOrEqual(20);
    expect(engine.findOrder(undefined, { orderId: '700000000000000002' })).toBeUndefined();
  });

  it('futures fills keep their detail (maker/taker, position, realised PnL of a close) exactly as long as the fill', () => {
    const clock = new ManualClock(0);
    const market = new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed: 1, startMs: 0, tickIntervalMs: 100 });
    const engine = new MatchingEngine(market.symbols, { spot: {}, futuresCollateral: '10000000', leverage: 10 }, clock, 4);
    const trade = (oid: string, reduceOnly: boolean) =>
      engine.place('futures', 'cmt_ethusdt', [
        { clientOid: oid, side: reduceOnly ? 'sell' : 'buy', kind: 'market', timeInForce: 'ioc', size: Decimal.from('0.01'), positionSide: 'long', reduceOnly },
      ]);
    for (let i = 0; i < 20; i++) expect(trade(`f${i}`, i % 2 === 1)[0]!.ok).toBe(true);
    const fills = engine.fills('cmt_ethusdt');
    expect(fills.length).toBeGreaterThan(0);
    expect(fills.length).toBeLessThanOrEqual(8);
    for (const f of fills) {
      const detail = engine.fillDetail('cmt_ethusdt', f.fillId)!;
      const order = engine.rawOrder(f.orderId);
      expect(detail).toMatchObject({ taker: true, positionSide: 'long' });
      if (order) expect(detail.reduceOnly).toBe(order.reduceOnly);
      expect(detail.realizedPnl === null).toBe(!detail.reduceOnly);
    }
    // The first fills were dropped, and their detail with them.
    expect(engine.fillDetail('cmt_ethusdt', '800000000000000001')).toBeUndefined();
    expect((engine.book('cmt_ethusdt') as unknown as { fillDetails: Map<string, unknown> }).fillDetails.size).toBe(fills.length);
  });
});
