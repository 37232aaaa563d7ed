// The dashboard script's pure helpers, run as the browser gets them (the served text, in a VM context): durations
// and times, amounts shown exactly, equity events' points, equity points as chart series (per surface, strictly increasing seconds),
// drawdown below the running peak, the bounded event log and server-sent events split from stream chunks.
import vm from 'node:vm';
import { describe, expect, it } from '@jest/globals';
import { CLIENT_HELPERS } from '../../../../src/ops/dashboard/client-helpers.js';

interface Point { time: number; value: number }
interface Helpers {
  formatDuration(ms: unknown): string;
  formatClock(atMs: unknown): string;
  formatAmount(value: unknown): string;
  equityBySurface(points: unknown[]): Record<string, Point[]>;
  addEquityPoint(bySurface: Record<string, Point[]>, p: unknown): { surface: string; point: Point } | null;
  equityPointsOf(e: unknown): Array<{ surface: string; value: unknown; atMs: number }>;
  drawdownOf(series: Point[]): Point[];
  pushBounded<T>(list: T[], item: T, max: number): T[];
}

const names = ['formatDuration', 'formatClock', 'formatAmount', 'equityBySurface', 'addEquityPoint', 'equityPointsOf', 'drawdownOf', 'pushBounded'];
const helpers = vm.runInNewContext(`${CLIENT_HELPERS}\n({ ${names.join(', ')} })`) as Helpers;
/** Values made in the VM context have its prototypes: compared through JSON. */
const plain = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

describe('dashboard client helpers', () => {
  it('formats durations, UTC times and amounts (unknown shows as -, decimals as sent)', () => {
    const { formatDuration, formatClock, formatAmount } = helpers;
    expect([0, 12_400, 245_000, 7_500_000, 3 * 86_400_000 + 4 * 3_600_000].map(formatDuration)).toEqual(['0s', '12s', '4m 05s', '2h 05m', '3d 04h']);
    expect([-1, Number.NaN, undefined].map(formatDuration)).toEqual(['-', '-', '-']);
    expect(formatClock(Date.UTC(2026, 0, 5, 13, 4, 9, 999))).toBe('13:04:09');
    expect(formatClock(null)).toBe('-');
    expect([null, undefined, '', '0', '0.00000001', '123456789012345678.12'].map(formatAmount)).toEqual(['-', '-', '-', '0', '0.00000001', '123456789012345678.12']);
  });

  it('makes one series per surface, in whole seconds, strictly increasing: the latest point of a second kept, unknown values and steps back left out', () => {
    const series = helpers.equityBySurface([
      { surface: 'spot', value: '1000.5', atMs: 1_000_100 },
      { surface: 'futures', value: '500', atMs: 1_000_200 },
      { surface: 'spot', value: '1001', atMs: 1_000_900 },
      { surface: 'spot', value: '', atMs: 1_001_000 },
      { surface: 'spot', value: '999', atMs: 1_002_000 },
      { surface: 'spot', value: '5', atMs: 999_000 },
      { surface: 'futures', value: 'n/a', atMs: 1_003_000 },
    ]);
    expect(plain(series)).toEqual({ spot: [{ time: 1000, value: 1001 }, { time: 1002, value: 999 }], futures: [{ time: 1000, value: 500 }] });
    expect(plain(helpers.addEquityPoint(series, { surface: 'futures', value: '510', atMs: 1_004_000 }))).toEqual({ surface: 'futures', point: { time: 1004, value: 510 } });
    expect(helpers.addEquityPoint(series, { surface: 'futures', value: '1', atMs: 1_003_999 })).toBeNull();
    expect(helpers.addEquityPoint(series, { value: '1', atMs: 1 })).toBeNull();
    expect(helpers.addEquityPoint(series, null)).toBeNull();
    expect(plain(series.futures)).toEqual([{ time: 1000, value: 500 }, { time: 1004, value: 510 }]);
  });

  it('reads the equity points an equity event carries: every surface at the event\'s time, or one point', () => {
    expect(plain(helpers.equityPointsOf({ kind: 'equity', atMs: 5000, data: { bySurface: { spot: '1000.5', futures: '20' } } }))).toEqual([
      { surface: 'spot', value: '1000.5', atMs: 5000 }, { surface: 'futures', value: '20', atMs: 5000 },
    ]);
    expect(plain(helpers.equityPointsOf({ atMs: 5000, data: { surface: 'spot', value: '1', atMs: 4000 } }))).toEqual([{ surface: 'spot', value: '1', atMs: 4000 }]);
    expect([null, {}, { data: null }, { data: { other: 1 } }].map((e) => helpers.equityPointsOf(e).length)).toEqual([0, 0, 0, 0]);
  });

  it('draws drawdown as percent below the running peak', () => {
    const dd = helpers.drawdownOf([{ time: 1, value: 100 }, { time: 2, value: 90 }, { time: 3, value: 120 }, { time: 4, value: 108 }, { time: 5, value: 120 }]);
    expect(plain(dd).map((p) => Math.round(p.value * 1e6) / 1e6)).toEqual([0, -10, 0, -10, 0]);
    expect(plain(helpers.drawdownOf([{ time: 1, value: 0 }]))).toEqual([{ time: 1, value: 0 }]);
  });

  it('keeps the event log bounded, newest first, and says what fell off', () => {
    const list: number[] = [];
    const dropped: number[] = [];
    for (let i = 1; i <= 5; i++) dropped.push(...helpers.pushBounded(list, i, 3));
    expect(list).toEqual([5, 4, 3]);
    expect(dropped).toEqual([1, 2]);
  });
});
