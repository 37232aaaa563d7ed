// Data files: OHLCV CSV import (candles of a timeframe, replayed along the intrabar path; its errors; times without a
// zone read as UTC) and the recorder.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { importOhlcvCsv } from '../../../src/data/csv-import.js';
import { dataFileMeta, writeDataFile } from '../../../src/data/data-file.js';
import { readReplayFile } from '../../../src/data/replay-file.js';
import { TapeRecorder } from '../../../src/data/recorder.js';
import { TAPE_TRADES_LIMIT } from '../../../src/data/market-data.js';
import { Decimal } from '../../../src/domain/decimal.js';
import type { PublicTrade, Ticker } from '../../../src/domain/market.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-csv-'));

describe('OHLCV CSV import', () => {
  it('reads bars as candles of their timeframe, which a backtest replays along the documented intrabar path', () => {
    const f = join(dir, 'ok.csv');
    writeFileSync(f, 'timestamp,open,high,low,close,volume\n1700000000000,100,110,95,105,8\n1700000060,105,106,90,92,4.2\n');
    const { timeframe, candles } = importOhlcvCsv(f, 'BTCUSDT_SPBL');
    expect(timeframe).toBe('1m');
    expect(candles).toEqual([
      { ts: 1_700_000_000_000, symbol: 'BTCUSDT_SPBL', open: '100', high: '110', low: '95', close: '105', volume: '8' },
      { ts: 1_700_000_060_000, symbol: 'BTCUSDT_SPBL', open: '105', high: '106', low: '90', close: '92', volume: '4.2' },
    ]);
    const out = join(dir, 'ok.jsonl');
    writeDataFile(out, dataFileMeta({ kind: 'candles', timeframe, symbols: ['BTCUSDT_SPBL'], source: 'import ok.csv' }), candles);
    expect(readReplayFile(out).map((x) => [x.ts - 1_700_000_000_000, x.price, x.size])).toEqual([
      [0, '100', '2'], [15000, '95', '2'], [30000, '110', '2'], [45000, '105', '2'], // up bar: low first
      [60000, '105', '1.05'], [75000, '106', '1.05'], [90000, '90', '1.05'], [105000, '92', '1.05'], // down bar: high first
    ]);
  });

  it('takes the timeframe given, or the shortest gap between bars; a missing bar does not stretch the one before', () => {
    const f = join(dir, 'gap.csv');
    // 1h bars with the 01:00 bar missing.
    writeFileSync(f, '2026-01-05T00:00:00Z,100,101,99,100,4\n2026-01-05T02:00:00Z,100,102,98,101,4\n2026-01-05T03:00:00Z,101,101,100,100,4\n');
    expect(importOhlcvCsv(f, 'X').timeframe).toBe('1h');
    expect(importOhlcvCsv(f, 'X', '30m').timeframe).toBe('30m');
    expect(() => importOhlcvCsv(f, 'X', '4h')).toThrow(`${f}:3: bars 3600 s apart: closer than their timeframe 4h`);
    writeFileSync(f, '2026-01-05T00:00:00Z,100,101,99,100,4\n2026-01-05T00:01:30Z,100,102,98,101,4\n');
    expect(() => importOhlcvCsv(f, 'X')).toThrow(`${f}:2: bars 90 s apart, which is no timeframe (1m, 5m, 15m, 30m, 1h, 2h, 4h, 6h, 8h, 12h, 1d, 1w): name the bars' timeframe`);
    writeFileSync(f, '2026-01-05T00:00:00Z,100,101,99,100,4\n');
    expect(() => importOhlcvCsv(f, 'X')).toThrow(`${f}: a single bar: name its timeframe`);
    expect(importOhlcvCsv(f, 'X', '1d').candles).toHaveLength(1);
  });

  it('names file, line and column of a malformed row', () => {
    const f = join(dir, 'bad.csv');
    writeFileSync(f, '1700000000000,100,110,95,105,8\n1700000060000,105,abc,90,92,4\n');
    expect(() => importOhlcvCsv(f, 'X')).toThrow(`${f}:2:19: high "abc" is not a non-negative decimal`);
    writeFileSync(f, '1700000000000,100,110,95,105,8\nyesterday,105,106,90,92,4\n');
    expect(() => importOhlcvCsv(f, 'X')).toThrow(`${f}:2:1: timestamp "yesterday" is not ms, s or ISO`);
    writeFileSync(f, '1700000000000,100,90,95,105,8\n');
    expect(() => importOhlcvCsv(f, 'X')).toThrow(/:1:\d+: high and low do not bound/);
  });

  it('reads a time without a zone as UTC, whatever the machine\'s zone; a named zone is honoured; an impossible date is refused', () => {
    const f = join(dir, 'zones.csv');
    writeFileSync(f, [
      'timestamp,open,high,low,close,volume',
      '2026-01-05 00:00:00,100,100,100,100,4',
      '2026-01-05T00:01:00,100,100,100,100,4',
      '2026-01-05T00:02:00.250,100,100,100,100,4',
      '2026-01-05T02:03:30+02:00,100,100,100,100,4',
      '2026-01-04T19:04:30-0500,100,100,100,100,4',
      '2026-01-05T00:05:30Z,100,100,100,100,4',
      '2026-01-06,100,100,100,100,4',
      '',
    ].join('\n'));
    // A child process in a zone five hours behind UTC (Jest's process.env is a copy: TZ must be set at the start).
    const script = `import { importOhlcvCsv } from './src/data/csv-import.ts';
      const { candles } = importOhlcvCsv(${JSON.stringify(f)}, 'X', '1m');
      console.log(JSON.stringify({ offsetMin: new Date(2026, 0, 5).getTimezoneOffset(), times: candles.map((r) => new Date(r.ts).toISOString()) }));`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env: { PATH: process.env.PATH ?? '', TZ: 'America/New_York', TSX_DISABLE_CACHE: '1' }, encoding: 'utf8' });
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout)).toEqual({
      offsetMin: 300,
      times: [
        '2026-01-05T00:00:00.000Z', '2026-01-05T00:01:00.000Z', '2026-01-05T00:02:00.250Z', '2026-01-05T00:03:30.000Z',
        '2026-01-05T00:04:30.000Z', '2026-01-05T00:05:30.000Z', '2026-01-06T00:00:00.000Z',
      ],
    });
    for (const bad of ['2026-13-05 00:00:00', '2026-02-30', '2026-01-05 24:00:00', '2026-01-05T00:00:00+24:00', '05/01/2026 00:00']) {
      writeFileSync(f, `${bad},100,100,100,100,4\n`);
      expect(() => importOhlcvCsv(f, 'X')).toThrow(`${f}:1:1: timestamp ${JSON.stringify(bad)} is not ms, s or ISO`);
    }
  });
});

describe('the tape recorder', () => {
  const trade = (tradeId: string, timestampMs: number, price: string, size: string, buyerMaker: boolean): PublicTrade => ({
    symbol: 'BTCUSDT_SPBL', tradeId, timestampMs, price: Decimal.from(price), size: Decimal.from(size), buyerMaker,
  });
  const ticker = (timestampMs: number, last: string, baseVolume: string | null): Ticker => ({
    symbol: 'cmt_btcusdt', last: Decimal.from(last), bestBid: Decimal.from('99.9'), bestAsk: Decimal.from('100.1'), markPrice: null, indexPrice: null,
    high24h: null, low24h: null, volume24h: null, baseVolume24h: baseVolume === null ? null : Decimal.from(baseVolume), timestampMs,
  });

  it('records each public trade once across overlapping reads, oldest first, with its size and side', () => {
    const rec = new TapeRecorder();
    // Newest first, as the venue lists them; two trades share an instant.
    const first = rec.take({ tickers: [], trades: [trade('c', 30, '101', '0.3', false), trade('b', 20, '100.5', '0.2', true), trade('a', 20, '100', '0.1', false)] });
    const second = rec.take({ tickers: [], trades: [trade('e', 40, '102', '0.5', true), trade('d', 30, '101.5', '0.4', false), trade('c', 30, '101', '0.3', false), trade('b', 20, '100.5', '0.2', true)] });
    const third = rec.take({ tickers: [], trades: [trade('e', 40, '102', '0.5', true), trade('d', 30, '101.5', '0.4', false)] });
    expect(first.records).toEqual([
      { ts: 20, symbol: 'BTCUSDT_SPBL', price: '100', size: '0.1', buyerMaker: false },
      { ts: 20, symbol: 'BTCUSDT_SPBL', price: '100.5', size: '0.2', buyerMaker: true },
      { ts: 30, symbol: 'BTCUSDT_SPBL', price: '101', size: '0.3', buyerMaker: false },
    ]);
    expect(second.records).toEqual([
      { ts: 30, symbol: 'BTCUSDT_SPBL', price: '101.5', size: '0.4', buyerMaker: false },
      { ts: 40, symbol: 'BTCUSDT_SPBL', price: '102', size: '0.5', buyerMaker: true },
    ]);
    expect(third.records).toEqual([]);
    expect([first.gaps, second.gaps, third.gaps]).toEqual([[], [], []]);
  });

  it('says when a full read does not reach back to what was recorded', () => {
    const rec = new TapeRecorder();
    rec.take({ tickers: [], trades: [trade('t0', 1, '100', '1', false)] });
    const full = Array.from({ length: TAPE_TRADES_LIMIT }, (_, i) => trade(`t${TAPE_TRADES_LIMIT + 1 - i}`, TAPE_TRADES_LIMIT + 1 - i, '100', '1', false));
    const r = rec.take({ tickers: [], trades: full });
    expect(r.gaps).toEqual(['BTCUSDT_SPBL']);
    expect(r.records).toHaveLength(TAPE_TRADES_LIMIT);
  });

  it('a futures ticker is a trade sized by what its volume grew, with bid and ask; no size 0, nothing invented', () => {
    const rec = new TapeRecorder();
    const samples = [
      ticker(1000, '100', '500'), // the first: nothing to compare with
      ticker(1000, '100', '500'), // the same sample again
      ticker(2000, '100.2', '500.75'),
      ticker(3000, '100.2', '500.75'), // nothing traded
      ticker(4000, '100.1', '499'), // more left the 24 h window than traded: size unknown
      ticker(5000, '100.3', '499.25'),
      ticker(6000, '100.4', null), // no volume given
      ticker(7000, '100.4', '499.5'), // nothing to compare with again
    ];
    const records = samples.flatMap((t) => rec.take({ tickers: [t], trades: [] }).records);
    expect(records).toEqual([
      { ts: 2000, symbol: 'cmt_btcusdt', price: '100.2', size: '0.75', bid: '99.9', ask: '100.1' },
      { ts: 5000, symbol: 'cmt_btcusdt', price: '100.3', size: '0.25', bid: '99.9', ask: '100.1' },
    ]);
  });
});
