// The data an optimisation cuts its windows from, and the copies of it cut at a time for the lookahead check.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { barMs, cutDataFile, dataSpan } from '../../../../src/app/commands/optimize-data.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-optimize-data-'));
const tick = (ts: number) => JSON.stringify({ ts, symbol: 'BTCUSDT_SPBL', price: '100', size: '1' });
const header = (extra: object) => JSON.stringify({ sextant: 'market-data', version: 1, kind: 'ticks', symbols: ['BTCUSDT_SPBL'], source: 'test', ...extra });

function file(name: string, lines: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

describe('dataSpan', () => {
  it("the header's span; without one, the first event to the last; within --from and --to", () => {
    const withHeader = file('h.jsonl', [header({ fromMs: 0, toMs: 10_000 }), tick(1000), tick(5000), tick(10_000)]);
    expect(dataSpan([withHeader])).toEqual({ fromMs: 0, toMs: 10_000 });
    const bare = file('b.jsonl', [tick(1000), tick(5000), tick(9000)]);
    expect(dataSpan([bare])).toEqual({ fromMs: 1000, toMs: 9000 });
    expect(dataSpan([bare], 2000, 6000)).toEqual({ fromMs: 2000, toMs: 6000 });
    expect(dataSpan([withHeader, file('later.jsonl', [tick(20_000), tick(30_000)])])).toEqual({ fromMs: 0, toMs: 30_000 });
    expect(() => dataSpan([bare], 9500)).toThrow(/no market event in the chosen range/);
  });
});

describe('cutDataFile', () => {
  it('ticks at or before the cut, the header saying the copy ends there', () => {
    const src = file('t.jsonl', [header({ fromMs: 0, toMs: 10_000 }), tick(1000), tick(4000), tick(4001), tick(9000)]);
    const out = join(dir, 'cut', 't-4000.jsonl');
    cutDataFile(src, 4000, out);
    expect(readFileSync(out, 'utf8')).toBe([header({ fromMs: 0, toMs: 4001 }), tick(1000), tick(4000), ''].join('\n'));
    expect(barMs([src])).toBe(0);
  });

  it('candles complete by the cut only (the one still forming is not known yet)', () => {
    const candle = (ts: number) => JSON.stringify({ ts, symbol: 'BTCUSDT_SPBL', open: '1', high: '2', low: '1', close: '2', volume: '1' });
    const h = JSON.stringify({
      sextant: 'market-data',
      version: 1,
      kind: 'candles',
      timeframe: '1m',
      symbols: ['BTCUSDT_SPBL'],
      source: 'test',
      fromMs: 0,
      toMs: 240_000,
    });
    const src = file('c.jsonl', [h, candle(0), candle(60_000), candle(120_000), candle(180_000)]);
    const out = join(dir, 'cut', 'c.jsonl');
    // At 179999 the third candle (120000 to 180000) has just closed; the fourth has not begun.
    cutDataFile(src, 179_999, out);
    expect(readFileSync(out, 'utf8').trim().split('\n').slice(1)).toEqual([candle(0), candle(60_000), candle(120_000)]);
    cutDataFile(src, 179_998, out);
    expect(readFileSync(out, 'utf8').trim().split('\n').slice(1)).toEqual([candle(0), candle(60_000)]);
    expect(barMs([src])).toBe(60_000);
  });
});
