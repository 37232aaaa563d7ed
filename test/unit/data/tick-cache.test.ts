// The binary tick cache of data files, on real files in a temporary folder: what it holds equals what the JSON reader
// reads, converted as the replay converts it; it is built once and rebuilt when the source or the units change; a
// source out of time order is sorted on disk in runs; several files are merged in time order; a window reads only
// the chunks it needs; a cache that cannot be written leaves the file read as text.
import { statSync, utimesSync, writeFileSync, appendFileSync, existsSync, readdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { dataFileMeta, writeDataFile } from '../../../src/data/data-file.js';
import { readReplayFile } from '../../../src/data/replay-file.js';
import { TickChunkFile } from '../../../src/data/tick-cache-file.js';
import { AUTO_CACHE_FOLDER, openTickFeed, tickCachePath, type TickFeedOptions } from '../../../src/data/tick-feed.js';
import { Decimal } from '../../../src/domain/decimal.js';
import type { ReplayRecord } from '../../../src/domain/replay-record.js';
import type { TickFeed, TickUnits } from '../../../src/domain/tick-columns.js';
import { DEFAULT_INSTRUMENTS } from '../../../src/exchange/sim/instruments.js';
import { ReplayMarket } from '../../../src/exchange/sim/market.js';
import { cannotWrite, unwritableFolder } from './unwritable-folder.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-tick-cache-'));
const units: TickUnits[] = new ReplayMarket(DEFAULT_INSTRUMENTS).units;
const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((undo) => undo()));

type Row = [symbol: string, ts: number, last: number, bid: number, ask: number, size: number, maker: number, mark: number, index: number];

/** A record as the replay converts it (written out here: the rule, not the code under test). */
function converted(r: ReplayRecord, u: readonly TickUnits[] = units): Row | null {
  const unit = u.find((x) => x.symbol === r.symbol);
  if (!unit) return null;
  const ticks = (s: string) => Decimal.from(s).steps(unit.tickSize, 'half-up');
  const last = ticks(r.price);
  const maker = r.buyerMaker === true;
  return [
    r.symbol, r.ts, last, r.bid ? ticks(r.bid) : maker ? last : last - 1, r.ask ? ticks(r.ask) : maker ? last + 1 : last,
    Math.max(1, Decimal.from(r.size).steps(unit.stepSize, 'half-up')), maker ? 1 : 0, r.mark ? ticks(r.mark) : 0, r.index ? ticks(r.index) : 0,
  ];
}

/** The records of a file as the JSON reader reads them, converted, in time order (a stable sort), in the window. */
function expected(files: string[], window: { fromMs?: number; toMs?: number } = {}, u: readonly TickUnits[] = units): Row[] {
  const rows = files.flatMap((f) => readReplayFile(f)).map((r) => converted(r, u)).filter((r): r is Row => r !== null);
  return rows
    .map((row, i) => ({ row, i }))
    .sort((a, b) => a.row[1] - b.row[1] || a.i - b.i)
    .map((x) => x.row)
    .filter((r) => (window.fromMs === undefined || r[1] >= window.fromMs) && (window.toMs === undefined || r[1] <= window.toMs));
}

/** Every row a feed hands out, in order. */
function drain(feed: TickFeed, u: readonly TickUnits[] = units): Row[] {
  const rows: Row[] = [];
  for (let b = feed.next(); b; b = feed.next()) {
    for (let i = b.begin; i < b.end; i++) rows.push([u[b.sym[i]!]!.symbol, b.ts[i]!, b.last[i]!, b.bid[i]!, b.ask[i]!, b.size[i]!, b.maker[i]!, b.mark[i]!, b.index[i]!]);
  }
  feed.close();
  return rows;
}

function firstsOf(feed: TickFeed, u: readonly TickUnits[] = units): Row[] {
  const f = feed.firsts;
  const rows: Row[] = [];
  for (let i = f.begin; i < f.end; i++) rows.push([u[f.sym[i]!]!.symbol, f.ts[i]!, f.last[i]!, f.bid[i]!, f.ask[i]!, f.size[i]!, f.maker[i]!, f.mark[i]!, f.index[i]!]);
  return rows.sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

/** Each symbol's first row of rows in replay order. */
function firstRows(rows: Row[]): Row[] {
  const seen = new Map<string, Row>();
  for (const r of rows) if (!seen.has(r[0])) seen.set(r[0], r);
  return [...seen.values()].sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

function open(files: string | string[], opts: Partial<TickFeedOptions> = {}, u: readonly TickUnits[] = units): { feed: TickFeed; built: number; notes: string[] } {
  let built = 0;
  const notes: string[] = [];
  const feed = openTickFeed(files, u, { cache: 'auto', onBuilt: () => built++, onNote: (m) => notes.push(m), ...opts });
  return { feed, built, notes };
}

const T0 = 1_767_571_200_000;

/** Ticks of three symbols (one the simulator does not trade), some with bid/ask/buyerMaker/mark/index. */
function tickRecords(n: number, seed = 1): ReplayRecord[] {
  let x = seed;
  const rnd = (k: number) => ((x = (x * 1103515245 + 12345) >>> 0) >>> 12) % k;
  return Array.from({ length: n }, (_, i) => {
    const symbol = ['cmt_btcusdt', 'BTCUSDT_SPBL', 'NOT_TRADED'][rnd(3)]!;
    const price = (90000 + rnd(1000) / 10).toFixed(1);
    const r: ReplayRecord = { ts: T0 + i * 1000, symbol, price, size: `0.0000${rnd(9)}` };
    const kind = rnd(4);
    if (kind === 1) Object.assign(r, { bid: (Number(price) - 0.1).toFixed(1), ask: price, buyerMaker: false });
    if (kind === 2) Object.assign(r, { buyerMaker: true });
    if (kind === 3 && symbol === 'cmt_btcusdt') Object.assign(r, { mark: (Number(price) + 0.5).toFixed(1), index: (Number(price) - 0.3).toFixed(2) });
    return r;
  });
}

function writeTicks(file: string, records: ReplayRecord[], header = true): string {
  if (header) writeDataFile(file, dataFileMeta({ kind: 'ticks', symbols: [...new Set(records.map((r) => r.symbol))], source: 'test' }), records);
  else writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return file;
}

describe('the tick cache', () => {
  it('holds what the JSON reader reads, converted as the replay converts it: ticks with and without bid, ask, mark and index', () => {
    const file = writeTicks(join(dir, 'ticks.jsonl'), tickRecords(1000));
    const want = expected([file]);
    expect(want.some((r) => r[7] !== 0) && want.some((r) => r[7] === 0) && want.some((r) => r[6] === 1)).toBe(true);
    const first = open(file, { chunkRows: 64 });
    expect(first.built).toBe(1);
    expect(first.feed.count).toBe(want.length);
    expect(first.feed.lastTs).toBe(want[want.length - 1]![1]);
    expect(firstsOf(first.feed)).toEqual(firstRows(want));
    expect(drain(first.feed)).toEqual(want);
    // Read again from the cache, as written.
    const again = open(file);
    expect(again.built).toBe(0);
    expect(drain(again.feed)).toEqual(want);
    // The conversion itself, on a few records.
    const small = writeTicks(join(dir, 'small.jsonl'), [
      { ts: 1, symbol: 'cmt_btcusdt', price: '90000.1', size: '0.00001' },
      { ts: 2, symbol: 'cmt_btcusdt', price: '90000.2', size: '0.5', buyerMaker: true, mark: '90001', index: '89999.95' },
      { ts: 3, symbol: 'cmt_ethusdt', price: '3000.25', size: '1.5', bid: '3000.2', ask: '3000.3' },
    ]);
    expect(drain(open(small).feed)).toEqual([
      ['cmt_btcusdt', 1, 900001, 900000, 900001, 1, 0, 0, 0],
      ['cmt_btcusdt', 2, 900002, 900002, 900003, 5000, 1, 900010, 900000],
      ['cmt_ethusdt', 3, 300025, 300020, 300030, 1500, 0, 0, 0],
    ]);
  });

  it('holds a candle file as its intrabar ticks, mark and index on the close tick', () => {
    const file = join(dir, 'candles.jsonl');
    const rows = Array.from({ length: 40 }, (_, i) => ({
      ts: T0 + i * 60_000, symbol: i % 2 ? 'cmt_ethusdt' : 'cmt_btcusdt', open: '100.5', high: '101', low: '99.5', close: i % 3 ? '100' : '100.75', volume: i % 5 ? '3.3' : '0',
      ...(i % 4 === 0 ? { mark: '100.1', index: '100.2' } : {}),
    }));
    // Two symbols' bars of one instant: opened a minute apart each.
    rows.forEach((r, i) => (r.ts = T0 + Math.floor(i / 2) * 60_000));
    writeDataFile(file, dataFileMeta({ kind: 'candles', timeframe: '1m', symbols: ['cmt_btcusdt', 'cmt_ethusdt'], source: 'test' }), rows);
    const want = expected([file]);
    expect(want).toHaveLength(160);
    expect(want.filter((r) => r[7] !== 0)).toHaveLength(10);
    const { feed, built } = open(file, { chunkRows: 16 });
    expect(built).toBe(1);
    expect(drain(feed)).toEqual(want);
  });

  it('is reused while the source is unchanged; touching or changing the source, or other units, rebuild it', () => {
    const file = writeTicks(join(dir, 'reuse.jsonl'), tickRecords(300, 7));
    const cache = tickCachePath(file, 'auto')!;
    expect(cache.startsWith(join(dir, AUTO_CACHE_FOLDER))).toBe(true);
    expect(open(file).built).toBe(1);
    const before = statSync(cache);
    const second = open(file);
    expect(second.built).toBe(0);
    expect(drain(second.feed)).toEqual(expected([file]));
    const after = statSync(cache);
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);

    // Touched: same content, another modification time.
    const t = statSync(file).mtime;
    utimesSync(file, t, new Date(t.getTime() + 5000));
    expect(open(file).built).toBe(1);
    expect(statSync(cache).ino).not.toBe(before.ino);
    expect(open(file).built).toBe(0);

    // Changed: one more record.
    appendFileSync(file, JSON.stringify({ ts: T0 + 10_000_000, symbol: 'cmt_btcusdt', price: '1', size: '1' }) + '\n');
    const changed = open(file);
    expect(changed.built).toBe(1);
    expect(changed.feed.count).toBe(expected([file]).length);
    changed.feed.close();

    // Other units: the contract's tick size, or a symbol of the file traded now that was not.
    const finer = units.map((u) => (u.symbol === 'cmt_btcusdt' ? { ...u, tickSize: Decimal.from('0.01') } : u));
    const rebuilt = open(file, {}, finer);
    expect(rebuilt.built).toBe(1);
    expect(drain(rebuilt.feed, finer)).toEqual(expected([file], {}, finer));
    expect(open(file, {}, finer).built).toBe(0);
    const more = [...units, { symbol: 'NOT_TRADED', tickSize: Decimal.from('0.1'), stepSize: Decimal.from('0.001') }];
    const wider = open(file, {}, more);
    expect(wider.built).toBe(1);
    expect(drain(wider.feed, more)).toEqual(expected([file], {}, more));
    // The same units in another order: the cache fits.
    const reversed = [...more].reverse();
    const again = open(file, {}, reversed);
    expect(again.built).toBe(0);
    expect(drain(again.feed, reversed)).toEqual(expected([file], {}, reversed));
  });

  it('sorts a source out of time order on disk, in runs of a chunk merged in passes: a stable sort', () => {
    // 1,500 records in runs of 7: 215 runs, more than one pass merges; many records share an instant.
    let x = 3;
    const shuffled = tickRecords(1500, 3).map((r) => ({ ...r, ts: T0 + ((x = (x * 1103515245 + 12345) >>> 0) % 200) * 1000 }));
    const file = writeTicks(join(dir, 'unsorted.jsonl'), shuffled, false);
    let runs = 0;
    const feed = openTickFeed(file, units, { cache: 'auto', chunkRows: 7, onBuilt: (_f, built) => (runs = built.sortedRuns) });
    expect(runs).toBeGreaterThan(64);
    const want = expected([file]);
    expect(firstsOf(feed)).toEqual(firstRows(want));
    expect(drain(feed)).toEqual(want);
    // No temporary file is left beside the cache.
    expect(readdirSync(join(dir, AUTO_CACHE_FOLDER)).filter((f) => f.startsWith('unsorted'))).toHaveLength(1);
    // Without a cache (`off`, or none can be written), the same order: sorted in the system's temporary folder,
    // left at once; with no temporary folder either, held in memory, and said so.
    const off = open(file, { cache: 'off', chunkRows: 7 });
    expect([off.built, off.notes]).toEqual([1, []]);
    expect(drain(off.feed)).toEqual(want);
    const folder = unwritableFolder(join(dir, 'no-tmp'));
    cleanups.push(folder.undo);
    const inMemory = open(file, { cache: 'off', sortFolder: folder.path });
    expect(inMemory.built).toBe(0);
    expect(inMemory.notes).toEqual([`${file}: out of time order and no folder to sort it in: its records are held in memory and sorted`]);
    expect(drain(inMemory.feed)).toEqual(want);
  });

  it('merges several files in time order: of one instant, the earlier file first, then in file order', () => {
    const a = tickRecords(400, 11).map((r, i) => ({ ...r, ts: T0 + Math.floor(i / 3) * 1000 }));
    const b = tickRecords(300, 12).map((r, i) => ({ ...r, ts: T0 + 500 + Math.floor(i / 2) * 1000 }));
    const c = tickRecords(50, 13).map((r, i) => ({ ...r, ts: T0 + 90_000 + i * 1000 }));
    const files = [writeTicks(join(dir, 'a.jsonl'), a), writeTicks(join(dir, 'b.jsonl'), b), writeTicks(join(dir, 'c.jsonl'), c)];
    const want = expected(files);
    for (const opts of [{ chunkRows: 13 }, { cache: 'off', chunkRows: 5 }, {}]) {
      const { feed } = open(files, opts);
      expect(feed.count).toBe(want.length);
      expect(feed.lastTs).toBe(want[want.length - 1]![1]);
      expect(firstsOf(feed)).toEqual(firstRows(want));
      expect(drain(feed)).toEqual(want);
    }
    // A window across the files.
    const window = { fromMs: T0 + 50_500, toMs: T0 + 120_000 };
    const { feed } = open(files, { ...window, chunkRows: 13 });
    const inWindow = expected(files, window);
    expect(feed.count).toBe(inWindow.length);
    expect(firstsOf(feed)).toEqual(firstRows(inWindow));
    expect(drain(feed)).toEqual(inWindow);
  });

  it('a window reads only the chunks it needs and counts its records from the chunk index', () => {
    const file = writeTicks(join(dir, 'window.jsonl'), tickRecords(5000, 21));
    drain(open(file, { chunkRows: 50 }).feed);
    const reads = { rows: 0, ts: 0 };
    const proto = TickChunkFile.prototype;
    const { readRows, readTs } = proto;
    proto.readRows = function (this: TickChunkFile, ...args: Parameters<typeof readRows>) {
      reads.rows++;
      return readRows.apply(this, args);
    };
    proto.readTs = function (this: TickChunkFile, ...args: Parameters<typeof readTs>) {
      reads.ts++;
      return readTs.apply(this, args);
    };
    try {
      const cases = [
        { fromMs: T0 + 1_234_500, toMs: T0 + 1_734_000 },
        { fromMs: T0 + 2_000_000, toMs: T0 + 2_000_000 },
        { toMs: T0 + 99_000 },
        { fromMs: T0 + 4_990_000 },
        { fromMs: T0 + 3_000_000, toMs: T0 + 2_000_000 },
        { fromMs: T0 + 9_000_000 },
      ];
      for (const window of cases) {
        reads.rows = 0;
        reads.ts = 0;
        const want = expected([file], window);
        const { feed, built } = open(file, window);
        expect(built).toBe(0);
        expect(feed.count).toBe(want.length);
        expect(Number.isNaN(feed.lastTs) ? undefined : feed.lastTs).toBe(want[want.length - 1]?.[1]);
        // Opened and counted: the chunks at the window's edges' times; the first records from the first chunk and the index.
        expect(reads.ts).toBeLessThanOrEqual(2);
        expect(reads.rows).toBeLessThanOrEqual(window.fromMs === undefined ? 0 : 4);
        expect(firstsOf(feed)).toEqual(firstRows(want));
        reads.rows = 0;
        expect(drain(feed)).toEqual(want);
        // One read per chunk of the window (50 records each; the window's records and the chunks at its edges).
        expect(reads.rows).toBeLessThanOrEqual(Math.ceil(want.length / 50) + 2);
        if (window.fromMs === T0 + 1_234_500) expect(want.length).toBeGreaterThan(300);
      }
    } finally {
      proto.readRows = readRows;
      proto.readTs = readTs;
    }
  });

  it('a cache that cannot be written leaves the file read as text, said once; nothing is written', () => {
    const folder = unwritableFolder(join(dir, 'read-only'));
    cleanups.push(folder.undo);
    expect(cannotWrite(folder.path)).toBe(true);
    const window = { fromMs: T0 + 3000 };
    // In time order: streamed from the file. Out of it: sorted in the system's temporary folder.
    const sorted = writeTicks(join(dir, 'ro-sorted.jsonl'), tickRecords(400, 31));
    const unsorted = writeTicks(join(dir, 'ro-unsorted.jsonl'), tickRecords(400, 31).map((r, i) => ({ ...r, ts: T0 + (i % 50) * 1000 })));
    for (const [file, builds] of [[sorted, 0], [unsorted, 1]] as const) {
      const { feed, built, notes } = open(file, { cache: folder.path, ...window });
      expect(built).toBe(builds);
      expect(notes).toHaveLength(1);
      expect(notes[0]).toMatch(new RegExp(`^${file}: no tick cache \\(cannot (create|write) .*\\): the file is read as text$`));
      expect(drain(feed)).toEqual(expected([file], window));
      expect(existsSync(tickCachePath(file, folder.path)!)).toBe(false);
    }
  });
});

describe('a replay from a feed', () => {
  it('moves the books as the same records replayed from memory do: same ticks, same seeds, same counts', () => {
    const records = tickRecords(3000, 41).map((r, i) => ({ ...r, ts: T0 + Math.floor(i / 4) * 250 }));
    const file = writeTicks(join(dir, 'replay.jsonl'), records);
    const trace = (market: ReplayMarket) => {
      const seen: string[] = [market.symbols.map((m) => `${m.last}/${m.bid}/${m.ask}/${m.ticks}`).join(' ')];
      const progress: number[][] = [[market.length, market.nextTs, market.lastTs, market.replayed]];
      for (let t = T0; !market.done; t += 1777) {
        market.advanceTo(t, (m) => seen.push(`${m.index}:${m.ts}:${m.last}:${m.bid}:${m.ask}:${m.tradeSize}:${m.topSize}:${m.buyerMaker}:${m.markTicks}:${m.indexTicks}:${m.ticks}`));
        progress.push([market.length, market.nextTs, market.replayed, market.now]);
      }
      return { seen, progress };
    };
    const inMemory = new ReplayMarket(DEFAULT_INSTRUMENTS);
    for (const r of readReplayFile(file)) inMemory.add(r);
    inMemory.begin();
    const fromMemory = trace(inMemory);
    for (const chunkRows of [64, 1000, 65_536]) {
      const streamed = new ReplayMarket(DEFAULT_INSTRUMENTS);
      streamed.replay(openTickFeed(file, streamed.units, { cache: join(dir, `replay-cache-${chunkRows}`), chunkRows }));
      expect(trace(streamed)).toEqual(fromMemory);
    }
    expect(fromMemory.seen.length).toBeGreaterThan(1000);
  });

  it('in memory, records appended as they come are replayed and dropped once replayed (dry-run)', () => {
    const market = new ReplayMarket(DEFAULT_INSTRUMENTS);
    let ticks = 0;
    for (let k = 0; k < 500; k++) {
      market.append([{ ts: T0 + k * 1000, symbol: 'cmt_btcusdt', price: '90000', size: '0.001' }, { ts: T0 + k * 1000 - 5000, symbol: 'cmt_btcusdt', price: '1', size: '1' }]);
      market.advanceTo(T0 + k * 1000, () => ticks++);
    }
    expect([ticks, market.replayed, market.length, market.lastTs, market.nextTs]).toEqual([500, 500, 500, T0 + 499_000, Number.POSITIVE_INFINITY]);
  });
});
