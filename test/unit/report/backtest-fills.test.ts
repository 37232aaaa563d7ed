// A run's fills folded as they happen, owners named late (by an event, by the journal, or only at the end), give
// the files and figures the whole list gives: trades.csv with the funding rows merged in, report.json's trade list,
// round-trips.csv, each strategy's trade stats and PnL, the metrics' totals, the fees by kind and the chart markers.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../src/domain/decimal.js';
import { BacktestFills } from '../../../src/report/backtest-fills.js';
import { writeReportJson } from '../../../src/report/backtest-files.js';
import { feesByKind, tradeCsvRows, type TradeCsvRow } from '../../../src/report/futures.js';
import { fillMarkers } from '../../../src/report/html.js';
import { realize, strategyPnls, tradeTotals } from '../../../src/report/metrics.js';
import { ROUND_TRIPS_CSV_HEADER, roundTripCsvLine, roundTrips, tradeStats, type OwnedFill } from '../../../src/report/round-trips.js';
import { TRADES_CSV_HEADER, tradesCsvLine, writeTradesCsv } from '../../../src/report/trades-csv.js';
import { beyondSafe, randomRun, rng, takeSample, type RandomRun } from './random-run.js';

const d = (s: string) => Decimal.from(s);
const dir = mkdtempSync(join(tmpdir(), 'sextant-fills-'));

/** Funding rows at random instants of the run, some at the very time of a fill. */
function fundingOf(run: RandomRun, seed: number): TradeCsvRow[] {
  const r = rng(seed * 31);
  const times = run.fills.filter(() => r() < 0.02).map((f) => f.timestampMs + (r() < 0.5 ? 0 : 1));
  return [run.fills[0]!.timestampMs - 5, ...times, run.fills[run.fills.length - 1]!.timestampMs + 10].map((timestampMs, i) => ({
    kind: 'funding' as const,
    symbol: i % 2 ? 'A' : 'B',
    timestampMs,
    amount: d(i % 3 ? '-0.1234' : '0.05'),
    rate: i % 4 ? d('0.0001') : null,
    positionSide: i % 4 ? ('long' as const) : null,
  }));
}

function fold(run: RandomRun, name: string, holdBack: number) {
  const marks: Record<string, Array<[number, Decimal]>> = {};
  const chart: Record<string, Array<[number, number]>> = {};
  const fills = new BacktestFills({ futures: run.futures, marks, chart, spillTo: join(dir, `${name}-`), keepTripPnls: true, holdBack });
  // The journal names the owner of half the orders no event names.
  const inJournal = (orderId: string) => (run.late.has(orderId) && Number(orderId.slice(1)) % 2 === 0 ? run.owners.get(orderId) : undefined);
  for (const e of run.events) {
    if (e.type === 'sample') {
      takeSample(marks, chart, e.symbol, e.ms, e.price);
      fills.settle(inJournal, e.ms - 2000, e.ms);
    } else if (e.type === 'fill') fills.fill(e.fill, e.kind, e.knownNow ? e.owner : undefined);
    else fills.resolve(e.orderId, e.owner, e.ms);
  }
  fills.finish((orderId) => run.owners.get(orderId)!);
  return { fills, chart };
}

describe('BacktestFills', () => {
  it.each([
    [11, 256, false],
    [12, 0, false],
    [13, 1, false],
    [14, 256, false],
    [15, 3, false],
    [16, 256, true],
    [17, 1, true],
  ])('seed %i, %i held back (amounts beyond 2^53: %s): the files and figures of the whole list', (seed, holdBack, huge) => {
    const run = randomRun(seed, 2000, { strategies: ['s1', 's2', 's3'], ownerDelay: true, huge });
    expect(beyondSafe(run)).toBe(huge);
    expect(run.late.size).toBeGreaterThan(0);
    const { fills, chart } = fold(run, `run${seed}`, holdBack);
    const ownerOf = (orderId: string) => run.owners.get(orderId)!;
    const owned = run.fills.map((f): OwnedFill => ({ fill: f, strategy: ownerOf(f.orderId), positionSide: run.kinds.get(f.fillId)?.positionSide ?? null }));
    const trips = roundTrips(owned, run.marks);
    const rows = realize(run.fills);

    // trades.csv, the funding rows merged in.
    const funding = fundingOf(run, seed);
    writeTradesCsv(join(dir, `trades-${seed}.csv`), fills.executions!, funding);
    expect(readFileSync(join(dir, `trades-${seed}.csv`), 'utf8')).toBe(
      [TRADES_CSV_HEADER, ...tradeCsvRows(rows, run.kinds, funding).map(tradesCsvLine)].join('\n') + '\n',
    );

    // The trade list: report.json, round-trips.csv, the newest, the stats, the closed trips' PnL.
    const report = { data: { records: 1 }, monthly: [{ month: '2026-01' }] };
    writeReportJson(join(dir, `report-${seed}.json`), report, fills.trips);
    expect(readFileSync(join(dir, `report-${seed}.json`), 'utf8')).toBe(`${JSON.stringify({ ...report, trades: trips }, null, 2)}\n`);
    fills.trips.writeCsv(join(dir, `trips-${seed}.csv`));
    expect(readFileSync(join(dir, `trips-${seed}.csv`), 'utf8')).toBe([ROUND_TRIPS_CSV_HEADER, ...trips.map(roundTripCsvLine)].join('\n') + '\n');
    expect(fills.trips.count).toBe(trips.length);
    expect(fills.trips.newest()).toEqual(trips.slice(-500));
    expect(fills.trips.pnls()).toEqual(trips.filter((t) => t.exitMs !== null).map((t) => t.pnl));
    for (const s of ['s1', 's2', 's3', '(liquidation)', 'nobody']) expect(fills.trips.stats(s)).toEqual(tradeStats(trips.filter((t) => t.strategy === s)));

    // The figures.
    const last = (s: string) => ({ A: d('100.5'), B: d('250'), S: d('9001.25') })[s];
    expect(fills.strategies.result(last)).toEqual(strategyPnls(run.fills, (f) => ownerOf(f.orderId), last));
    const totals = tradeTotals(rows);
    expect(fills.ledger.totals()).toEqual({ ...totals, grossWin: expect.anything(), grossLoss: expect.anything(), fees: expect.anything() });
    expect([fills.ledger.totals().grossWin.toString(), fills.ledger.totals().fees.toString()]).toEqual([totals.grossWin.toString(), totals.fees.toString()]);
    expect(Object.values(fills.ledger.feesByKind()).map(String)).toEqual(Object.values(feesByKind(rows, run.kinds, run.futures)).map(String));

    // The markers, more than a chart shows for a symbol or fewer.
    const markers = fills.markers.markers();
    expect(Object.keys(markers)).toEqual(Object.keys(chart));
    for (const [symbol, points] of Object.entries(chart)) {
      const ofSymbol = run.fills.filter((f) => f.symbol === symbol).map((f) => ({ time: Math.floor(f.timestampMs / 1000), side: f.side }));
      expect(markers[symbol]).toEqual(fillMarkers(points, ofSymbol));
    }
    fills.discard();
  });

  it('a run without a trip or a fill: the files hold their headers, report.json an empty list', () => {
    const fills = new BacktestFills({ futures: new Set(), marks: {}, chart: { X: [[1, 1]] }, spillTo: join(dir, 'empty-') });
    fills.finish(() => 'none');
    writeTradesCsv(join(dir, 'empty-trades.csv'), fills.executions!, []);
    expect(readFileSync(join(dir, 'empty-trades.csv'), 'utf8')).toBe(`${TRADES_CSV_HEADER}\n`);
    writeReportJson(join(dir, 'empty.json'), { a: 1 }, fills.trips);
    expect(readFileSync(join(dir, 'empty.json'), 'utf8')).toBe(`${JSON.stringify({ a: 1, trades: [] }, null, 2)}\n`);
    fills.trips.writeCsv(join(dir, 'empty-trips.csv'));
    expect(readFileSync(join(dir, 'empty-trips.csv'), 'utf8')).toBe(`${ROUND_TRIPS_CSV_HEADER}\n`);
    expect(fills.markers.markers()).toEqual({ X: [] });
    fills.discard();
  });
});

describe('BacktestFills, a fill whose owner is named late', () => {
  it('opens its trip where it happened: trips that closed meanwhile wait for it', () => {
    const fill = (symbol: string, orderId: string, timestampMs: number, side: 'buy' | 'sell') => ({
      symbol,
      orderId,
      fillId: orderId,
      side,
      price: d('10'),
      size: d('1'),
      amount: d('10'),
      fee: d('0.01'),
      timestampMs,
    });
    const fills = new BacktestFills({ futures: new Set(), marks: {}, chart: {} });
    fills.fill(fill('B', 'p', 100, 'buy'), undefined, undefined);
    fills.fill(fill('A', 'a1', 200, 'buy'), undefined, 's');
    fills.fill(fill('A', 'a2', 300, 'sell'), undefined, 's');
    expect(fills.trips.count).toBe(0);
    fills.resolve('p', 's', 400);
    fills.finish(() => '(not ours)');
    expect(fills.trips.newest().map((t) => [t.symbol, t.entryMs, t.exitMs])).toEqual([
      ['B', 100, null],
      ['A', 200, 300],
    ]);
  });
});
