// The venue's weight meter shared by the simulator's HTTP face and the backtest: fixed windows aligned to the
// clock per pool, 429 (false) beyond the budget, pools reported in a stable order.
import { describe, expect, it } from '@jest/globals';
import { VENUE_BUDGET, venueBudgetOf, type VenueBudget } from '../../../../src/domain/venue-budget.js';
import { ENDPOINTS } from '../../../../src/exchange/endpoints.js';
import { BudgetMeter } from '../../../../src/exchange/sim/budget-meter.js';

const BUDGET: VenueBudget = { spot: { ip: 12, uid: 100 }, futures: { ip: 100, uid: 100 }, windowMs: 1000, orderRequestsPerSecond: 1 };

describe('budget meter', () => {
  it('refuses what takes a pool over its budget in a window aligned to the clock, and refills the next window', () => {
    const meter = new BudgetMeter(BUDGET);
    expect(meter.charge(ENDPOINTS.S9, 0)).toBe(true); // 5
    expect(meter.charge(ENDPOINTS.S9, 999)).toBe(true); // 10
    expect(meter.charge(ENDPOINTS.S9, 999)).toBe(false); // 15 > 12: counted all the same
    expect(meter.pools()).toEqual([{ name: 'spot:ip', by: 'local', windowMs: 1000, limit: 12, windowIndex: 0, used: 15, spentTotal: 15, most: 0 }]);
    expect(meter.charge(ENDPOINTS.S9, 1000)).toBe(true);
    expect(meter.pools()[0]).toMatchObject({ windowIndex: 1, used: 5, spentTotal: 20 });
  });

  it('caps order endpoints per second in their own pool', () => {
    const meter = new BudgetMeter({ ...BUDGET, spot: { ip: 1e6, uid: 1e6 } });
    expect(meter.charge(ENDPOINTS.S5, 10_000)).toBe(true);
    expect(meter.charge(ENDPOINTS.S5, 10_999)).toBe(false);
    expect(meter.charge(ENDPOINTS.S5, 11_000)).toBe(true);
    expect(meter.pools().find((p) => p.name === 'spot:orders')).toMatchObject({ windowMs: 1000, limit: 1, used: 1, spentTotal: 3 });
  });

  it("lists pools in the order first charged; spent weight in the endpoint table's order", () => {
    const meter = new BudgetMeter(VENUE_BUDGET);
    meter.charge(ENDPOINTS.F3, 0);
    meter.charge(ENDPOINTS.S8, 0);
    expect(meter.pools().map((p) => [p.name, p.limit])).toEqual([
      ['futures:ip', 1000],
      ['futures:uid', 1000],
      ['spot:ip', 500],
      ['spot:uid', 500],
    ]);
    expect(Object.entries(meter.spentByPool())).toEqual([
      ['spot:ip', 5],
      ['spot:uid', 5],
      ['futures:ip', 5],
      ['futures:uid', 5],
    ]);
  });

  it("is built from the client-side limiter's figures as the backtest meters them", () => {
    const w = (budget: number, windowMs = 10_000) => ({ budget, windowMs });
    expect(venueBudgetOf({ spot: { ip: w(500), uid: w(400) }, futures: { ip: w(1000), uid: w(900) }, orderRequests: w(25, 2000) })).toEqual({
      spot: { ip: 500, uid: 400 },
      futures: { ip: 1000, uid: 900 },
      windowMs: 10_000,
      orderRequestsPerSecond: 12,
    });
  });

  it('counts IP pools per address and UID and order pools per account', () => {
    const meter = new BudgetMeter({ ...BUDGET, futures: { ip: 12, uid: 10 } });
    const a = { ip: '10.0.0.1', uid: 'acct-a' };
    const b = { ip: '10.0.0.1', uid: 'acct-b' };
    expect(meter.charge(ENDPOINTS.F7, 0, a)).toBe(true); // 5 IP / 10 UID / 1 order request
    expect(meter.charge(ENDPOINTS.F7, 0, b)).toBe(true); // the address: 10; account b: 10
    expect(meter.charge(ENDPOINTS.F7, 0, { ip: '10.0.0.2', uid: 'acct-c' })).toBe(true);
    expect(meter.charge(ENDPOINTS.F3, 0, a)).toBe(false); // the address 15 > 12, account a 15 > 10
    expect(meter.pools().map((p) => `${p.name}@${p.by} ${p.used}`)).toEqual([
      'futures:ip@10.0.0.1 15',
      'futures:uid@acct-a 15',
      'futures:orders@acct-a 1',
      'futures:uid@acct-b 10',
      'futures:orders@acct-b 1',
      'futures:ip@10.0.0.2 5',
      'futures:uid@acct-c 10',
      'futures:orders@acct-c 1',
    ]);
  });

  it("measuring, keeps the most weight any interval of a window saw, across aligned windows' boundaries", () => {
    const meter = new BudgetMeter({ ...BUDGET, spot: { ip: 100, uid: 100 } }, { measure: true });
    // 5 at 0, 5 at 900, 5 at 1100, 5 at 1899: aligned windows see 10 each; [900, 1900) sees 15.
    for (const t of [0, 900, 1100, 1899]) meter.charge(ENDPOINTS.S9, t);
    expect(meter.pools()[0]).toMatchObject({ used: 10, most: 15 });
    // An arrival exactly one window after another does not share its interval.
    meter.charge(ENDPOINTS.S9, 2900);
    expect(meter.pools()[0]).toMatchObject({ most: 15 });
  });
});
