// Weight budgets in virtual time: every call is charged its endpoint's weights; over budget means a 429.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../../src/domain/decimal.js';
import { DEFAULT_INSTRUMENTS } from '../../../../src/exchange/sim/instruments.js';
import { SyntheticMarket } from '../../../../src/exchange/sim/market.js';
import { MeteredClient } from '../../../../src/exchange/sim/metered-client.js';
import { SimulatedExchange } from '../../../../src/exchange/sim/simulated-exchange.js';

describe('metered client', () => {
  it('refuses reads and writes past the window budget with the venue 429, and refills next window', async () => {
    const sim = new SimulatedExchange(new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed: 3, startMs: 0, tickIntervalMs: 100 }), {
      spot: { USDT: '100000' },
      futuresCollateral: '0',
      leverage: 1,
    });
    const c = new MeteredClient(sim, { spot: { ip: 12, uid: 100 }, futures: { ip: 100, uid: 100 }, windowMs: 1000, orderRequestsPerSecond: 1 }, sim.clock);
    await c.recentTrades('BTCUSDT_SPBL'); // S9: 5
    await c.recentTrades('BTCUSDT_SPBL'); // 10
    await expect(c.recentTrades('BTCUSDT_SPBL')).rejects.toMatchObject({ category: 'rate-limit', httpStatus: 429 }); // 15 > 12
    sim.advanceTo(1000);
    await expect(c.recentTrades('BTCUSDT_SPBL')).resolves.toBeDefined();
    const place = () =>
      c.placeOrders('spot', 'BTCUSDT_SPBL', [
        { clientOid: `o${Math.random().toString(36).slice(2, 8)}`, side: 'buy', kind: 'market', timeInForce: 'ioc', size: Decimal.from('0.001') },
      ]);
    sim.advanceTo(2000);
    expect((await place())[0]!.outcome).toBe('accepted');
    const [r] = await place(); // second order request in the same second: over the 1/s cap
    expect(r).toMatchObject({ outcome: 'rejected' });
    expect('error' in r! && r.error.category).toBe('rate-limit');
    expect(c.stats).toMatchObject({ rateLimited: 2 });
    expect(c.stats.weight['spot:ip']).toBe(5 * 4 + 5 * 2);
  });

  it('charges the endpoints the live client reads: S15 (or S1) open orders, F18 / F5 + F19 lookups, S2 / F20 fills', async () => {
    const big = { spot: { ip: 1e6, uid: 1e6 }, futures: { ip: 1e6, uid: 1e6 }, windowMs: 1000, orderRequestsPerSecond: 1e6 };
    const sim = new SimulatedExchange(new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed: 3, startMs: 0, tickIntervalMs: 100 }), {
      spot: { USDT: '100000' },
      futuresCollateral: '100000',
      leverage: 10,
    });
    const c = new MeteredClient(sim, big, sim.clock);
    const s1 = new MeteredClient(sim, big, sim.clock, 'S1');
    const spent = (m: MeteredClient) => ({ ...m.stats.weight });
    const delta = async (m: MeteredClient, f: () => Promise<unknown>) => {
      const before = spent(m);
      await f();
      const after = spent(m);
      return Object.fromEntries(
        Object.entries(after)
          .map(([k, v]) => [k, v - (before[k] ?? 0)])
          .filter(([, v]) => v !== 0),
      );
    };
    expect(await delta(c, () => c.openOrders('spot', 'BTCUSDT_SPBL'))).toEqual({ 'spot:ip': 3, 'spot:uid': 3 });
    expect(await delta(s1, () => s1.openOrders('spot', 'BTCUSDT_SPBL'))).toEqual({ 'spot:ip': 10, 'spot:uid': 10 });
    const [r] = await c.placeOrders('futures', 'cmt_btcusdt', [
      { clientOid: 'mf_1', side: 'buy', kind: 'market', timeInForce: 'ioc', size: Decimal.from('0.01'), positionSide: 'long' },
    ]);
    const orderId = (r as { orderId: string }).orderId;
    expect(await delta(c, () => c.order('futures', 'cmt_btcusdt', { orderId }))).toEqual({ 'futures:ip': 2, 'futures:uid': 2 });
    // Filled, so not among the open orders: F5 (2) and F19 (10).
    expect(await delta(c, () => c.order('futures', 'cmt_btcusdt', { clientOid: 'mf_1' }))).toEqual({ 'futures:ip': 12, 'futures:uid': 12 });
    expect(await delta(c, () => c.fills('futures', 'cmt_btcusdt', orderId))).toEqual({ 'futures:ip': 5, 'futures:uid': 5 });
    expect(await delta(c, () => c.fills('spot', 'BTCUSDT_SPBL'))).toEqual({ 'spot:ip': 5, 'spot:uid': 5 });
  });

  it('charges the market-data and trigger-order endpoints; what the live client refuses before sending is not charged', async () => {
    const big = { spot: { ip: 1e6, uid: 1e6 }, futures: { ip: 1e6, uid: 1e6 }, windowMs: 1000, orderRequestsPerSecond: 1e6 };
    const sim = new SimulatedExchange(new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed: 3, startMs: 0, tickIntervalMs: 100 }), {
      spot: { USDT: '100000' },
      futuresCollateral: '100000',
      leverage: 10,
    });
    const c = new MeteredClient(sim, big, sim.clock);
    const delta = async (f: () => Promise<unknown>) => {
      const before = { ...c.stats.weight };
      await f().catch(() => undefined);
      return Object.fromEntries(
        Object.entries(c.stats.weight)
          .map(([k, v]) => [k, v - (before[k] ?? 0)])
          .filter(([, v]) => v !== 0),
      );
    };
    const FUT = 'cmt_btcusdt';
    expect(await delta(() => c.ticker('BTCUSDT_SPBL'))).toEqual({ 'spot:ip': 1 });
    expect(await delta(() => c.ticker(FUT))).toEqual({ 'futures:ip': 1 });
    expect(await delta(() => c.depth('BTCUSDT_SPBL', 200))).toEqual({ 'spot:ip': 1 });
    expect(await delta(() => c.candles('BTCUSDT_SPBL', '6h'))).toEqual({ 'spot:ip': 1 });
    expect(await delta(() => c.candles(FUT, '1m', { limit: 1000 }))).toEqual({ 'futures:ip': 1 });
    expect(await delta(() => c.historyCandles(FUT, '1h', { startMs: 0, endMs: 3_600_000 }))).toEqual({ 'futures:ip': 5 });
    expect(await delta(() => c.fundingRates())).toEqual({ 'futures:ip': 1 });
    expect(await delta(() => c.nextFundingTime(FUT))).toEqual({ 'futures:ip': 1 });
    expect(await delta(() => c.fundingHistory(FUT))).toEqual({ 'futures:ip': 5 });
    expect(await delta(() => c.priceIndex(FUT, 'mark'))).toEqual({ 'futures:ip': 1 });
    expect(await delta(() => c.triggerOrders())).toEqual({ 'futures:ip': 3, 'futures:uid': 3 });
    expect(await delta(() => c.triggerOrderHistory(FUT))).toEqual({ 'futures:ip': 5, 'futures:uid': 10 });
    // Refused before sending: nothing reaches the venue, nothing is charged.
    await expect(c.historyCandles('BTCUSDT_SPBL', '1h', { startMs: 0, endMs: 1 })).rejects.toMatchObject({ category: 'bad-request' });
    for (const refused of [
      () => c.historyCandles('BTCUSDT_SPBL', '1h', { startMs: 0, endMs: 1 }),
      () => c.candles(FUT, '2h'),
      () => c.candles(FUT, '1m', { limit: 1001 }),
      () => c.depth(FUT, 20 as 15),
      () => c.fundingHistory(FUT, 101),
      () => c.triggerOrderHistory(FUT, { limit: 0 }),
    ])
      expect(await delta(refused)).toEqual({});
  });
});
