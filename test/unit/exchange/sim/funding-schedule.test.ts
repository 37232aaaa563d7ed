// The simulator's funding schedule: per contract, settlements every interval at an offset from the epoch (480
// minutes at 00:00, 08:00, 16:00 UTC by default), rates a function of the seed, the contract and the settlement,
// small and of both signs over time; recorded settlements rule a contract when given.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../../src/domain/decimal.js';
import { FUNDING_CYCLE_MS, FundingSchedule } from '../../../../src/exchange/sim/funding-schedule.js';

const CYCLE = 8 * 3_600_000;
const BTC = 'cmt_btcusdt';
const SOL = 'cmt_solusdt';
const d = (s: string) => Decimal.from(s);

describe('FundingSchedule', () => {
  const schedule = new FundingSchedule(7, [{ symbol: BTC }, { symbol: SOL, fundingIntervalMinutes: 240, fundingOffsetMinutes: 60 }]);

  it('settles at 00:00, 08:00 and 16:00 UTC by default: the next one is after now, a settlement at now has happened', () => {
    expect(FUNDING_CYCLE_MS).toBe(CYCLE);
    const t = Date.UTC(2025, 5, 20, 1, 42, 6);
    expect(schedule.cycleMinutes(BTC)).toBe(480);
    expect(schedule.nextSettlementMs(BTC, t)).toBe(Date.UTC(2025, 5, 20, 8));
    expect(schedule.lastSettlementMs(BTC, t)).toBe(Date.UTC(2025, 5, 20, 0));
    expect(schedule.nextSettlementMs(BTC, Date.UTC(2025, 5, 20, 16))).toBe(Date.UTC(2025, 5, 21, 0));
    expect(schedule.history(BTC, t, 3).map((s) => s.settlementMs)).toEqual([Date.UTC(2025, 5, 20, 0), Date.UTC(2025, 5, 19, 16), Date.UTC(2025, 5, 19, 8)]);
    // A contract the schedule was not told of keeps the default.
    expect(schedule.nextSettlementMs('cmt_other', t)).toBe(Date.UTC(2025, 5, 20, 8));
  });

  it('each contract has its own interval and offset', () => {
    const t = Date.UTC(2025, 5, 20, 1, 42, 6);
    expect(schedule.cycleMinutes(SOL)).toBe(240);
    expect(schedule.lastSettlementMs(SOL, t)).toBe(Date.UTC(2025, 5, 20, 1));
    expect(schedule.nextSettlementMs(SOL, t)).toBe(Date.UTC(2025, 5, 20, 5));
    expect(schedule.nextSettlementMs(SOL, Date.UTC(2025, 5, 20, 5))).toBe(Date.UTC(2025, 5, 20, 9));
    expect(schedule.history(SOL, t, 3).map((s) => s.settlementMs)).toEqual([Date.UTC(2025, 5, 20, 1), Date.UTC(2025, 5, 19, 21), Date.UTC(2025, 5, 19, 17)]);
  });

  it("rates: the same for the same seed, contract and settlement; the current rate is the next settlement's", () => {
    const t = Date.UTC(2025, 0, 1, 8);
    expect(new FundingSchedule(7).rate(BTC, t).eq(schedule.rate(BTC, t))).toBe(true);
    expect(schedule.currentRate(BTC, t - 1).eq(schedule.rate(BTC, t))).toBe(true);
    const year = Array.from({ length: 3 * 365 }, (_, k) => schedule.rate(BTC, t + k * CYCLE));
    const other = Array.from({ length: 3 * 365 }, (_, k) => new FundingSchedule(8).rate(BTC, t + k * CYCLE));
    expect(year.map(String)).not.toEqual(other.map(String));
    expect(year.some((r) => r.isNegative()) && year.some((r) => r.gt(Decimal.ZERO))).toBe(true);
    expect(year.every((r) => r.abs().lte(d('0.00045')) && r.scale <= 7)).toBe(true);
  });

  it('recorded settlements rule a contract: their times and rates; beyond the latest, the interval from it with the latest rate', () => {
    const s = new FundingSchedule(7, [{ symbol: BTC }]);
    const t0 = Date.UTC(2025, 0, 1, 4); // off the 00/08/16 grid, as the venue's bills show
    s.setHistory(BTC, [
      { settlementMs: t0 + 2 * CYCLE, rate: d('-0.0002') },
      { settlementMs: t0, rate: d('0.0001') },
      { settlementMs: t0 + CYCLE, rate: d('0.00015') },
    ]);
    expect(s.nextSettlementMs(BTC, t0 - 1)).toBe(t0);
    expect(s.lastSettlementMs(BTC, t0 + 1)).toBe(t0);
    expect(s.nextSettlementMs(BTC, t0)).toBe(t0 + CYCLE);
    expect(s.rate(BTC, t0 + CYCLE).toString()).toBe('0.00015');
    expect(s.currentRate(BTC, t0 + CYCLE).toString()).toBe('-0.0002');
    expect(s.nextSettlementMs(BTC, t0 + 2 * CYCLE)).toBe(t0 + 3 * CYCLE);
    expect(s.rate(BTC, t0 + 3 * CYCLE).toString()).toBe('-0.0002');
    expect(s.history(BTC, t0 + 3 * CYCLE, 5).map((x) => [x.settlementMs - t0, x.rate.toString()])).toEqual([
      [3 * CYCLE, '-0.0002'],
      [2 * CYCLE, '-0.0002'],
      [CYCLE, '0.00015'],
      [0, '0.0001'],
      [-CYCLE, '0.0001'],
    ]);
    // Back to the seeded model.
    s.setHistory(BTC, []);
    expect(s.nextSettlementMs(BTC, t0)).toBe(Date.UTC(2025, 0, 1, 8));
  });
});
