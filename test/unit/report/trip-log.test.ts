// The trade list as spilled: report.json's items are what JSON.stringify writes (names with quotes, backslashes,
// commas, tabs and characters beyond ASCII included), and places kept for open trips are written in where they were
// kept, counted in bytes, whether the items are written before round-trips.csv or after.
import { mkdtempSync, openSync, closeSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { ROUND_TRIPS_CSV_HEADER, roundTripCsvLine, tradeStats, type RoundTrip } from '../../../src/report/round-trips.js';
import { TripLog } from '../../../src/report/trip-log.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-trips-'));
const NAMES = ['plain', 'quote"d', 'back\\slash', 'ümlaut', 'emoji 📈', 'tab\there', 'com,ma'];

function trip(i: number, open = false): RoundTrip {
  return {
    strategy: NAMES[i % NAMES.length]!,
    symbol: i % 2 ? 'cmt_btcusdt' : 'BTCUSDT_SPBL',
    side: i % 3 ? 'long' : 'short',
    entryMs: 1000 * i,
    entryAt: new Date(1000 * i).toISOString(),
    fills: 2 + (i % 4),
    entryPrice: `${100 + i}.12345678`,
    exitMs: open ? null : 1000 * i + 500,
    exitAt: open ? null : new Date(1000 * i + 500).toISOString(),
    exitPrice: open && i % 2 ? null : `${99 + i}.00000000`,
    durationMs: open ? null : 500,
    size: '0.0015',
    pnl: i % 2 ? `-0.${String(i).padStart(8, '0')}` : `${i}.50000000`,
    fees: '0.00100000',
    mae: '-1.00000000',
    mfe: '0.00000000',
  };
}

describe('TripLog', () => {
  it.each([
    [30, 5, 'before'],
    [30, 5, 'after'],
    [3000, 0, 'after'],
    [3000, 0, 'before'],
    [3000, 7, 'after'],
  ] as const)('%i trips, a place kept every %i: kept places written in where they were kept, report.json items %s round-trips.csv', (n, every, order) => {
    const name = `log-${n}-${every}-${order}`;
    const log = new TripLog({ spillTo: join(dir, name), keepPnls: true, newest: 4 });
    const list: RoundTrip[] = [];
    const slots: Array<[ReturnType<TripLog['reserve']>, RoundTrip]> = [];
    for (let i = 0; i < n; i++) {
      const t = trip(i, i % 7 === 3);
      if (every > 0 && i % every === 2) slots.push([log.reserve(), t]);
      else log.append(t);
      list.push(t);
    }
    for (const [slot, t] of slots) log.place(slot, t);
    const items = () => {
      const fd = openSync(join(dir, `${name}.json`), 'w');
      log.writeJsonItems(fd);
      closeSync(fd);
      const text = JSON.stringify({ trades: list }, null, 2);
      expect(readFileSync(join(dir, `${name}.json`), 'utf8')).toBe(text.slice(text.indexOf('[\n') + 2, text.lastIndexOf('\n  ]')));
    };
    if (order === 'before') items();
    log.writeCsv(join(dir, `${name}.csv`));
    expect(readFileSync(join(dir, `${name}.csv`), 'utf8')).toBe([ROUND_TRIPS_CSV_HEADER, ...list.map(roundTripCsvLine)].join('\n') + '\n');
    if (order === 'after') items();
    expect(log.count).toBe(n);
    expect(log.newest()).toEqual(list.slice(-4));
    expect(log.pnls()).toEqual(list.filter((t) => t.exitMs !== null).map((t) => t.pnl));
    for (const s of NAMES) expect(log.stats(s)).toEqual(tradeStats(list.filter((t) => t.strategy === s)));
    log.discard();
  });
});
