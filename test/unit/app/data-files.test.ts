import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { importOhlcvCsv } from '../../../src/app/data-files.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-csv-'));

describe('OHLCV CSV import', () => {
  it('turns bars into ticks along the documented intrabar path', () => {
    const f = join(dir, 'ok.csv');
    writeFileSync(f, 'timestamp,open,high,low,close,volume\n1700000000000,100,110,95,105,8\n1700000060,105,106,90,92,4\n');
    const r = importOhlcvCsv(f, 'BTCUSDT_SPBL');
    expect(r.map((x) => [x.ts - 1_700_000_000_000, x.price, x.size])).toEqual([
      [0, '100', '2'], [15000, '95', '2'], [30000, '110', '2'], [45000, '105', '2'], // up bar: low first
      [60000, '105', '1'], [75000, '106', '1'], [90000, '90', '1'], [105000, '92', '1'], // down bar: high first
    ]);
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
});
