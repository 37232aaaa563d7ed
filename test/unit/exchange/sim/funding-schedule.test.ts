// The simulator's funding schedule: settlements every 480 minutes from the epoch, rates a function of the seed, the
// contract and the settlement, small and of both signs over time.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../../src/domain/decimal.js';
import { FUNDING_CYCLE_MS, FundingSchedule } from '../../../../src/exchange/sim/funding-schedule.js';

const CYCLE = 8 * 3_600_000;

describe('FundingSchedule', () => {
  const schedule = new FundingSchedule(7);

  it('settles at 00:00, 08:00 and 16:00 UTC: the next one is after now, a settlement at now has happened', () => {
    expect(FUNDING_CYCLE_MS).toBe(CYCLE);
    const t = Date.UTC(2025, 5, 20, 1, 42, 6);
    expect(schedule.nextSettlementMs(t)).toBe(Date.UTC(2025, 5, 20, 8));
    expect(schedule.lastSettlementMs(t)).toBe(Date.UTC(2025, 5, 20, 0));
    expect(schedule.nextSettlementMs(Date.UTC(2025, 5, 20, 16))).toBe(Date.UTC(2025, 5, 21, 0));
    expect(schedule.history('cmt_btcusdt', t, 3).map((s) => s.settlementMs)).toEqual([Date.UTC(2025, 5, 20, 0), Date.UTC(2025, 5, 19, 16), Date.UTC(2025, 5, 19, 8)]);
  });

  it('rates: the same for the same seed, contract and settlement; the current rate is the next settlement\'s', () => {
    const t = Date.UTC(2025, 0, 1, 8);
    expect(new FundingSchedule(7).rate('cmt_btcusdt', t).eq(schedule.rate('cmt_btcusdt', t))).toBe(true);
    expect(schedule.currentRate('cmt_btcusdt', t - 1).eq(schedule.rate('cmt_btcusdt', t))).toBe(true);
    const year = Array.from({ length: 3 * 365 }, (_, k) => schedule.rate('cmt_btcusdt', t + k * CYCLE));
    const other = Array.from({ length: 3 * 365 }, (_, k) => new FundingSchedule(8).rate('cmt_btcusdt', t + k * CYCLE));
    expect(year.map(String)).not.toEqual(other.map(String));
    expect(year.some((r) => r.isNegative()) && year.some((r) => r.gt(Decimal.ZERO))).toBe(true);
    expect(year.every((r) => r.abs().lte(Decimal.from('0.00045')) && r.scale <= 7)).toBe(true);
  });
});
