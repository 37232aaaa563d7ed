// The dashboard script's pure helpers, run as the browser gets them (the served text, in a VM context): durations
// and times, amounts shown exactly, equity events' points, equity points as chart series (per surface, strictly increasing seconds),
// drawdown below the running peak, the bounded event log and its repeats folded into the newest entry.
import vm from 'node:vm';
import { describe, expect, it } from '@jest/globals';
import { CLIENT_HELPERS } from '../../../../src/ops/dashboard/client-helpers.js';
import { shown } from '../../../../src/util/shown.js';

interface Point {
  time: number;
  value: number;
}
interface Helpers {
  formatDuration(ms: unknown): string;
  formatClock(atMs: unknown): string;
  formatAmount(value: unknown): string;
  equityBySurface(points: unknown[]): Record<string, Point[]>;
  addEquityPoint(bySurface: Record<string, Point[]>, p: unknown): { surface: string; point: Point } | null;
  equityPointsOf(e: unknown): Array<{ surface: string; value: unknown; atMs: number }>;
  drawdownOf(series: Point[]): Point[];
  pushBounded<T>(list: T[], item: T, max: number): T[];
  countOf(n: number, noun: string): string;
  eventEntry(e: unknown): Entry;
  foldEvent(newest: Entry | null, e: unknown): Entry | null;
}
interface Entry {
  key: string;
  count: number;
  firstAtMs: number | null;
  atMs: number | null;
}

const names = [
  'formatDuration',
  'formatClock',
  'formatAmount',
  'equityBySurface',
  'addEquityPoint',
  'equityPointsOf',
  'drawdownOf',
  'pushBounded',
  'countOf',
  'eventEntry',
  'foldEvent',
];
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
    expect([null, undefined, '', '0', '0.00000001', '123456789012345678.12'].map(formatAmount)).toEqual([
      '-',
      '-',
      '-',
      '0',
      '0.00000001',
      '123456789012345678.12',
    ]);
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
    expect(plain(series)).toEqual({
      spot: [
        { time: 1000, value: 1001 },
        { time: 1002, value: 999 },
      ],
      futures: [{ time: 1000, value: 500 }],
    });
    expect(plain(helpers.addEquityPoint(series, { surface: 'futures', value: '510', atMs: 1_004_000 }))).toEqual({
      surface: 'futures',
      point: { time: 1004, value: 510 },
    });
    expect(helpers.addEquityPoint(series, { surface: 'futures', value: '1', atMs: 1_003_999 })).toBeNull();
    expect(helpers.addEquityPoint(series, { value: '1', atMs: 1 })).toBeNull();
    expect(helpers.addEquityPoint(series, null)).toBeNull();
    expect(plain(series.futures)).toEqual([
      { time: 1000, value: 500 },
      { time: 1004, value: 510 },
    ]);
  });

  it("reads the equity points an equity event carries: every surface at the event's time, or one point", () => {
    expect(plain(helpers.equityPointsOf({ kind: 'equity', atMs: 5000, data: { bySurface: { spot: '1000.5', futures: '20' } } }))).toEqual([
      { surface: 'spot', value: '1000.5', atMs: 5000 },
      { surface: 'futures', value: '20', atMs: 5000 },
    ]);
    expect(plain(helpers.equityPointsOf({ atMs: 5000, data: { surface: 'spot', value: '1', atMs: 4000 } }))).toEqual([
      { surface: 'spot', value: '1', atMs: 4000 },
    ]);
    expect([null, {}, { data: null }, { data: { other: 1 } }].map((e) => helpers.equityPointsOf(e).length)).toEqual([0, 0, 0, 0]);
  });

  it('draws drawdown as percent below the running peak', () => {
    const dd = helpers.drawdownOf([
      { time: 1, value: 100 },
      { time: 2, value: 90 },
      { time: 3, value: 120 },
      { time: 4, value: 108 },
      { time: 5, value: 120 },
    ]);
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

  it('counts with their noun: 1 order, 3 orders', () => {
    expect([0, 1, 3].map((n) => helpers.countOf(n, 'order'))).toEqual(['0 orders', '1 order', '3 orders']);
  });

  describe('the event log folds a repeat into its newest entry', () => {
    /** Folds events in turn as the page does: the entries, newest first, as [count, firstAtMs, atMs]. */
    const logOf = (events: unknown[]) => {
      const entries: Entry[] = [];
      for (const e of events) {
        const folded = helpers.foldEvent(entries[0] ?? null, e);
        if (folded) entries[0] = folded;
        else entries.unshift(helpers.eventEntry(e));
      }
      return plain(entries).map((x) => [x.count, x.firstAtMs, x.atMs]);
    };
    const denied = (atMs: number, detail: string, over: Record<string, unknown> = {}) => ({
      kind: 'order',
      atMs,
      text: `mm-btc BTCUSDT_SPBL: denied (${shown(over.reason ?? 'halted')}): ${detail}`,
      data: { type: 'denied', strategyId: 'mm-btc', symbol: 'BTCUSDT_SPBL', reason: 'halted', ...over },
    });

    it('the same kind and text: one entry with the count and the latest time', () => {
      expect(logOf(Array.from({ length: 12 }, (_, i) => denied(1000 + i, 'kill-switch:drawdown')))).toEqual([[12, 1000, 1011]]);
    });

    it('numbers and the order ids the data names set aside: amounts, times, client and venue ids', () => {
      const cap = (atMs: number, notional: string) => denied(atMs, `notional ${notional} above 1000 at 12:00:0${atMs % 10}`, { reason: 'max-notional-order' });
      const accepted = (atMs: number, n: number) => ({
        kind: 'order',
        atMs,
        text: `mm-btc BTCUSDT_SPBL: sx_mmbtc_${n.toString(36)} accepted as 90071992547409${n}`,
        data: { strategyId: 'mm-btc', symbol: 'BTCUSDT_SPBL', clientOid: `sx_mmbtc_${n.toString(36)}`, orderId: `90071992547409${n}` },
      });
      const equity = (atMs: number, v: string) => ({ kind: 'equity', atMs, text: `equity spot ${v}`, data: { bySurface: { spot: v } } });
      expect(
        logOf([cap(1, '5000.5'), cap(2, '6001'), cap(3, '-12'), accepted(4, 10), accepted(5, 11), accepted(6, 35), equity(7, '9990.1'), equity(8, '10002')]),
      ).toEqual([
        [2, 7, 8],
        [3, 4, 6],
        [3, 1, 3],
      ]);
    });

    it('another kind, reason, strategy, symbol, side or word is an entry of its own; only the newest entry folds', () => {
      const fill = (atMs: number, side: string, over: Record<string, unknown> = {}) => ({
        kind: 'fill',
        atMs,
        text: `mm-btc BTCUSDT_SPBL: c1 ${side} filled 0.002 at 65000.1`,
        data: { strategyId: 'mm-btc', symbol: 'BTCUSDT_SPBL', ...over },
      });
      expect(
        logOf([
          denied(1, 'x'),
          denied(2, 'x', { reason: 'reducing' }),
          denied(3, 'x', { strategyId: 'grid-eth' }),
          denied(4, 'x', { symbol: 'ETHUSDT_SPBL' }),
          { ...denied(5, 'x'), kind: 'state' },
          fill(6, 'buy'),
          fill(7, 'sell'),
          fill(8, 'sell', { strategyId: 'mm-btc2' }),
          { kind: 'strategy', atMs: 9, text: 'grid-eth2 paused', data: {} },
          { kind: 'strategy', atMs: 10, text: 'grid-eth3 paused', data: {} },
          denied(11, 'x'),
        ]).map(([count]) => count),
      ).toEqual(Array.from({ length: 11 }, () => 1));
    });

    it('an event without a time or data folds by what it has', () => {
      expect(
        logOf([
          { kind: 'command', text: 'halt by dashboard' },
          { kind: 'command', atMs: 5, text: 'halt by dashboard', data: null },
          { kind: 'command', atMs: 3, text: 'halt by dashboard' },
        ]),
      ).toEqual([[3, 3, 5]]);
    });
  });
});
