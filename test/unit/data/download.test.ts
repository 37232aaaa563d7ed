// Candle downloads against an in-memory venue: F11 paging (both bounds, ≤100 rows, the next page ending before the
// oldest row), the forming candle dropped, resuming without duplicates, interruptions, gaps reported and not
// invented, refusals of a file that holds something else, and spot's latest-only S10. Funding downloads: F16's
// latest ≤100 settlements merged into the file, a hole named, another file refused.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { dataFileMeta, readCandleFile, readDataFileMeta, readFundingFile, writeDataFile } from '../../../src/data/data-file.js';
import { DownloadRefusal, downloadCandles, downloadFunding, type CandleReader, type DownloadOptions, type FundingReader } from '../../../src/data/download.js';
import { barOpenMs, TIMEFRAME_MS, type Timeframe, type VenueCandle } from '../../../src/domain/candles.js';
import { Decimal } from '../../../src/domain/decimal.js';
import type { CandleWindow } from '../../../src/exchange/client.js';
import { ManualClock } from '../../../src/util/clock.js';

const M = 60_000;
const T0 = Date.UTC(2026, 0, 5);
/** "Now" in these tests: 30 s into the candle that opens at T0 + 600 min (still forming). */
const NOW = T0 + 600 * M + 30_000;

/**
 * A venue's candle history of one futures contract and one spot pair, one candle a minute from `oldestMs` to now
 * (the newest still forming), less the `holes`. F11 as observed: both bounds honoured (or, `endOnly`, the start
 * ignored as the docs say), at most `limit` rows, the newest of the window, oldest first. S10: the latest 300.
 */
class FakeVenue implements CandleReader {
  readonly calls: Array<{ symbol: string; window: CandleWindow }> = [];
  holes = new Set<number>();
  endOnly = false;
  ignoresBounds = false;
  failOnCall?: number;
  onCall?: (n: number) => void;

  constructor(
    readonly clock: ManualClock,
    readonly oldestMs = T0 - 1000 * M,
  ) {}

  private candle(openMs: number): VenueCandle {
    // A deterministic walk: the price of a minute depends on the minute only.
    const base = 1000 + ((openMs / M) % 97);
    const d = (n: number) => Decimal.from(String(n));
    return { openMs, open: d(base), high: d(base + 2), low: d(base - 1), close: d(base + 1), baseVolume: Decimal.from(`${(openMs / M) % 7}.5`), quoteVolume: d(1) };
  }

  private served(tf: Timeframe): number[] {
    const out: number[] = [];
    for (let t = this.oldestMs; t <= barOpenMs(this.clock.now(), tf); t += TIMEFRAME_MS[tf]) if (!this.holes.has(t)) out.push(t);
    return out;
  }

  async historyCandles(symbol: string, tf: Timeframe, window: CandleWindow): Promise<VenueCandle[]> {
    this.calls.push({ symbol, window });
    this.onCall?.(this.calls.length);
    if (this.failOnCall === this.calls.length) throw new Error('venue down');
    const limit = window.limit ?? 100;
    if (limit > 100) throw new Error('F11 serves at most 100 rows');
    const opens = this.served(tf).filter((t) => this.ignoresBounds || (t <= window.endMs && (this.endOnly || t >= window.startMs)));
    return opens.slice(-limit).map((t) => this.candle(t));
  }

  async candles(_symbol: string, tf: Timeframe): Promise<VenueCandle[]> {
    return this.served(tf).slice(-300).map((t) => this.candle(t));
  }

  rowsOf(symbol: string, fromMs: number, toMs: number) {
    return this.served('1m').filter((t) => t >= fromMs && t < toMs).map((t) => {
      const c = this.candle(t);
      return { ts: t, symbol, open: c.open.toString(), high: c.high.toString(), low: c.low.toString(), close: c.close.toString(), volume: c.baseVolume.toString() };
    });
  }
}

const dir = mkdtempSync(join(tmpdir(), 'sextant-download-'));
let fileNo = 0;
const newFile = () => join(dir, `candles-${++fileNo}.jsonl`);

function setup(opts: Partial<DownloadOptions> = {}) {
  const clock = new ManualClock(NOW);
  const venue = new FakeVenue(clock);
  const options = (over: Partial<DownloadOptions>): DownloadOptions => ({
    out: newFile(), targets: [{ symbol: 'cmt_btcusdt', surface: 'futures' }], timeframe: '1m', venue: 'test', clock, ...opts, ...over,
  });
  return { clock, venue, options };
}

describe('downloading futures history (F11)', () => {
  it('pages back from the end, both bounds sent, ≤100 rows each; the file is sorted, complete, and says what it is', async () => {
    const { venue, options } = setup();
    const opts = options({ fromMs: T0 + 10 * M + 5_000, toMs: T0 + 260 * M });
    const progress: Array<[number, number]> = [];
    const r = await downloadCandles(venue, { ...opts, onProgress: (done, total) => progress.push([done, total]) });
    // The candle holding --from is the first; 250 candles in three pages, newest first, each ending before the last one's oldest row.
    expect(venue.calls.map((c) => [(c.window.startMs - T0) / M, (c.window.endMs + 1 - T0) / M, c.window.limit])).toEqual([[160, 260, 100], [60, 160, 100], [10, 60, 100]]);
    expect(r).toMatchObject({ candles: 250, fetched: 250, requests: { F11: 3, S10: 0 }, gaps: [], stopped: false });
    expect(progress).toEqual([[0, 250], [100, 250], [200, 250], [250, 250]]);
    const file = readCandleFile(opts.out);
    expect(file.meta).toEqual({ sextant: 'market-data', version: 1, kind: 'candles', timeframe: '1m', symbols: ['cmt_btcusdt'], source: 'download test F11', fromMs: T0 + 10 * M, toMs: T0 + 260 * M });
    expect(file.rows).toEqual(venue.rowsOf('cmt_btcusdt', T0 + 10 * M, T0 + 260 * M));
  });

  it('never writes the candle still forming: a window up to now ends with the last complete candle', async () => {
    const { venue, options } = setup();
    const opts = options({ fromMs: T0 + 550 * M });
    const r = await downloadCandles(venue, opts);
    expect(r.candles).toBe(50);
    expect(readCandleFile(opts.out).rows.at(-1)!.ts).toBe(T0 + 599 * M);
    expect(readDataFileMeta(opts.out)!.toMs).toBe(T0 + 600 * M);
  });

  it('resumes: a second run asks only for what the file lacks, duplicates nothing, and ends with the file a single run writes', async () => {
    const { venue, options } = setup();
    const whole = options({ fromMs: T0, toMs: T0 + 300 * M });
    await downloadCandles(venue, whole);
    const part = options({ fromMs: T0 + 100 * M, toMs: T0 + 150 * M });
    await downloadCandles(venue, part);
    venue.calls.length = 0;
    const r = await downloadCandles(venue, { ...part, fromMs: T0, toMs: T0 + 300 * M });
    // Missing: [0, 100) and [150, 300): the later run first, each newest first.
    expect(venue.calls.map((c) => [(c.window.startMs - T0) / M, (c.window.endMs + 1 - T0) / M])).toEqual([[200, 300], [150, 200], [0, 100]]);
    expect(r).toMatchObject({ candles: 300, fetched: 250, gaps: [], stopped: false });
    expect(readFileSync(part.out, 'utf8')).toBe(readFileSync(whole.out, 'utf8'));
    // Once more: nothing missing, nothing asked, nothing changed.
    venue.calls.length = 0;
    expect(await downloadCandles(venue, { ...part, fromMs: T0, toMs: T0 + 300 * M })).toMatchObject({ fetched: 0, requests: { F11: 0 } });
    expect(readFileSync(part.out, 'utf8')).toBe(readFileSync(whole.out, 'utf8'));
  });

  it('an interrupted download keeps what came; running it again completes it', async () => {
    const { venue, options } = setup();
    const whole = options({ fromMs: T0, toMs: T0 + 300 * M });
    await downloadCandles(venue, whole);
    const opts = options({ fromMs: T0, toMs: T0 + 300 * M });
    const first = await downloadCandles(venue, { ...opts, stopped: () => venue.calls.length >= 4 });
    expect(first).toMatchObject({ stopped: true, fetched: 100, gaps: [] });
    expect(readCandleFile(opts.out).rows.map((row) => row.ts)).toEqual(venue.rowsOf('x', T0 + 200 * M, T0 + 300 * M).map((row) => row.ts));
    const second = await downloadCandles(venue, opts);
    expect(second).toMatchObject({ stopped: false, fetched: 200, candles: 300 });
    expect(readFileSync(opts.out, 'utf8')).toBe(readFileSync(whole.out, 'utf8'));
  });

  it('an error of the venue stops the download with what came written', async () => {
    const { venue, options } = setup();
    venue.failOnCall = 2;
    const opts = options({ fromMs: T0, toMs: T0 + 300 * M });
    const r = await downloadCandles(venue, opts);
    expect(r.failure?.message).toBe('venue down');
    expect(r).toMatchObject({ stopped: true, fetched: 100, candles: 100 });
    expect(readCandleFile(opts.out).rows).toHaveLength(100);
  });

  it('rewrites the file with what came at most every checkpointMs while it runs', async () => {
    const { venue, clock, options } = setup();
    const opts = options({ fromMs: T0, toMs: T0 + 500 * M, checkpointMs: 25_000 });
    const seen: number[] = [];
    venue.onCall = () => {
      seen.push(existsSync(opts.out) ? readCandleFile(opts.out).rows.length : -1);
      clock.advance(10_000);
    };
    await downloadCandles(venue, opts);
    // Saved after the third page (30 s after the start) only.
    expect(seen).toEqual([-1, -1, -1, 300, 300]);
  });

  it('reports the candles the venue did not serve, and stops walking back where its history ends', async () => {
    const { venue, options } = setup();
    for (let t = T0 + 20 * M; t < T0 + 25 * M; t += M) venue.holes.add(t);
    venue.holes.add(T0 + 140 * M);
    const opts = options({ fromMs: venue.oldestMs - 500 * M, toMs: T0 + 200 * M });
    const r = await downloadCandles(venue, opts);
    expect(r.gaps).toEqual([
      { symbol: 'cmt_btcusdt', fromMs: venue.oldestMs - 500 * M, toMs: venue.oldestMs, candles: 500 },
      { symbol: 'cmt_btcusdt', fromMs: T0 + 20 * M, toMs: T0 + 25 * M, candles: 5 },
      { symbol: 'cmt_btcusdt', fromMs: T0 + 140 * M, toMs: T0 + 141 * M, candles: 1 },
    ]);
    expect(r.candles).toBe(1200 - 6);
    // Twelve pages of history, and one empty page beyond it.
    expect(r.requests.F11).toBe(13);
    // The rows are the venue's, none invented.
    expect(readCandleFile(opts.out).rows).toEqual(venue.rowsOf('cmt_btcusdt', venue.oldestMs, T0 + 200 * M));
  });

  it('pages the same when the venue ignores the start bound (the docs: endTime wins), and ends when it ignores both', async () => {
    const a = setup();
    a.venue.endOnly = true;
    const opts = a.options({ fromMs: T0, toMs: T0 + 250 * M });
    expect(await downloadCandles(a.venue, opts)).toMatchObject({ candles: 250, requests: { F11: 3 }, gaps: [] });
    expect(readCandleFile(opts.out).rows).toEqual(a.venue.rowsOf('cmt_btcusdt', T0, T0 + 250 * M));
    const b = setup();
    b.venue.ignoresBounds = true;
    const r = await downloadCandles(b.venue, b.options({ fromMs: T0, toMs: T0 + 250 * M }));
    expect(r).toMatchObject({ candles: 0, requests: { F11: 1 }, gaps: [{ symbol: 'cmt_btcusdt', fromMs: T0, toMs: T0 + 250 * M, candles: 250 }] });
  });

  it('downloads several symbols into one file, rows by open time then symbol', async () => {
    const { venue, options } = setup();
    const opts = options({ targets: [{ symbol: 'cmt_ethusdt', surface: 'futures' }, { symbol: 'cmt_btcusdt', surface: 'futures' }], fromMs: T0, toMs: T0 + 3 * M });
    await downloadCandles(venue, opts);
    expect(readCandleFile(opts.out).rows.map((row) => [(row.ts - T0) / M, row.symbol])).toEqual([
      [0, 'cmt_btcusdt'], [0, 'cmt_ethusdt'], [1, 'cmt_btcusdt'], [1, 'cmt_ethusdt'], [2, 'cmt_btcusdt'], [2, 'cmt_ethusdt'],
    ]);
    expect(readDataFileMeta(opts.out)!.symbols).toEqual(['cmt_ethusdt', 'cmt_btcusdt']);
  });

  it('refuses to resume a file that holds something else, leaving it as it was', async () => {
    const { venue, options } = setup();
    const opts = options({ fromMs: T0, toMs: T0 + 10 * M });
    await downloadCandles(venue, opts);
    const before = readFileSync(opts.out, 'utf8');
    const refusals: Array<[Partial<DownloadOptions>, string]> = [
      [{ timeframe: '5m' }, 'it holds 1m candles of cmt_btcusdt, not 5m candles of cmt_btcusdt'],
      [{ targets: [{ symbol: 'cmt_ethusdt', surface: 'futures' }] }, 'it holds 1m candles of cmt_btcusdt, not 1m candles of cmt_ethusdt'],
      [{ venue: 'elsewhere' }, 'it was written by "download test F11", not "download elsewhere F11"'],
    ];
    for (const [over, why] of refusals) {
      const err = await downloadCandles(venue, { ...opts, ...over }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DownloadRefusal);
      expect((err as Error).message).toBe(`${opts.out} exists and cannot be resumed: ${why}; choose another output file`);
    }
    const ticks = newFile();
    writeFileSync(ticks, '{"ts":1,"symbol":"cmt_btcusdt","price":"1","size":"1"}\n');
    await expect(downloadCandles(venue, { ...opts, out: ticks })).rejects.toThrow(`${ticks} exists and cannot be resumed: ${ticks}: not a candle file (it holds ticks without a header); choose another output file`);
    expect(readFileSync(opts.out, 'utf8')).toBe(before);
    expect(readFileSync(ticks, 'utf8')).toBe('{"ts":1,"symbol":"cmt_btcusdt","price":"1","size":"1"}\n');
  });

  it('keeps the rows a file already holds outside the window, and widens its span', async () => {
    const { venue, options } = setup();
    const opts = options({ fromMs: T0, toMs: T0 + 10 * M });
    writeDataFile(opts.out, dataFileMeta({ kind: 'candles', timeframe: '1m', symbols: ['cmt_btcusdt'], source: 'download test F11', fromMs: T0 + 20 * M, toMs: T0 + 22 * M }), venue.rowsOf('cmt_btcusdt', T0 + 20 * M, T0 + 22 * M));
    await downloadCandles(venue, opts);
    const file = readCandleFile(opts.out);
    expect(file.rows.map((row) => (row.ts - T0) / M)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 20, 21]);
    expect([file.meta.fromMs, file.meta.toMs]).toEqual([T0, T0 + 22 * M]);
  });

  it('needs a start for futures, and a window with a complete candle', async () => {
    const { venue, options } = setup();
    await expect(downloadCandles(venue, options({}))).rejects.toThrow('cmt_btcusdt: a futures download needs a start (F11 pages history back to it)');
    await expect(downloadCandles(venue, options({ fromMs: NOW - 10_000 }))).rejects.toThrow('no complete 1m candle between 2026-01-05T10:00:20Z and 2026-01-05T10:00:30Z (the candle open at 2026-01-05T10:00:00Z is still forming)');
  });
});

describe('downloading a spot pair (no history in v2: S10 serves the latest ~300 candles)', () => {
  const spot = [{ symbol: 'BTCUSDT_SPBL', surface: 'spot' as const }];

  it('takes a window within what S10 serves from it, without F11', async () => {
    const { venue, options } = setup({ targets: spot });
    const opts = options({ fromMs: NOW - 60 * M, toMs: NOW - 30 * M });
    const r = await downloadCandles(venue, opts);
    // The candles holding the window's ends are in it: 10:00:30 − 60 min to 10:00:30 − 30 min is 31 candles.
    expect(r).toMatchObject({ candles: 31, requests: { F11: 0, S10: 1 }, gaps: [] });
    expect(venue.calls).toEqual([]);
    expect(readCandleFile(opts.out).meta.source).toBe('download test S10');
  });

  it('refuses a window S10 does not reach back to, saying what exists; --latest takes what it serves', async () => {
    const { venue, options } = setup({ targets: spot });
    const opts = options({ fromMs: T0 });
    await expect(downloadCandles(venue, opts)).rejects.toThrow(
      'BTCUSDT_SPBL is a spot pair: the venue has no spot candle history in v2; S10 serves the latest candles only (now 299 1m candles, 2026-01-05T05:01:00Z to 2026-01-05T10:00:00Z). ' +
        'Ask for a window within them, or take what it serves with --latest; `sextant record` records ticks from now on.',
    );
    expect(existsSync(opts.out)).toBe(false);
    const r = await downloadCandles(venue, { ...opts, latest: true });
    // Nothing older exists: the window starts where S10's candles do, and says so.
    expect(r).toMatchObject({ candles: 299, gaps: [], notes: ['BTCUSDT_SPBL: S10 serves 1m candles from 2026-01-05T05:01:00Z on (no spot history in v2): the window starts there'] });
    expect([r.meta.fromMs, r.meta.toMs]).toEqual([T0 + 301 * M, T0 + 600 * M]);
    const latest = await downloadCandles(venue, { ...opts, out: newFile(), fromMs: undefined, latest: true });
    expect(latest).toMatchObject({ candles: 299, gaps: [] });
    expect([latest.meta.fromMs, latest.meta.toMs]).toEqual([T0 + 301 * M, T0 + 600 * M]);
  });
});

describe('downloading funding rates (F16: the latest ≤100 settlements, no window)', () => {
  const CYCLE = 480 * M;
  /** A contract settling every 8 h since long ago; F16 answers the latest `limit` (at most 100), newest first. */
  class FundingVenue implements FundingReader {
    readonly calls: Array<{ symbol: string; limit: number | undefined }> = [];
    constructor(readonly clock: ManualClock) {}
    async fundingHistory(symbol: string, limit?: number) {
      this.calls.push({ symbol, limit });
      if ((limit ?? 10) > 100) throw new Error('F16 serves at most 100 rows');
      const out = [];
      for (let t = Math.floor(this.clock.now() / CYCLE) * CYCLE, k = 0; k < (limit ?? 10); k++, t -= CYCLE) {
        out.push({ symbol, fundingTimeMs: t, rate: Decimal.from(`0.0000${String((t / CYCLE) % 97).padStart(3, '0')}`) });
      }
      return out;
    }
  }

  it('writes the latest 100 settlements of each contract, oldest first, the header spanning them to now', async () => {
    const clock = new ManualClock(NOW);
    const venue = new FundingVenue(clock);
    const out = newFile();
    const r = await downloadFunding(venue, { out, symbols: ['cmt_btcusdt', 'cmt_ethusdt'], venue: 'test', clock });
    expect(venue.calls).toEqual([{ symbol: 'cmt_btcusdt', limit: 100 }, { symbol: 'cmt_ethusdt', limit: 100 }]);
    const newest = Math.floor(NOW / CYCLE) * CYCLE;
    expect(r).toMatchObject({ rates: 200, fetched: 200, requests: { F16: 2 }, notes: [] });
    const file = readFundingFile(out);
    expect(file.meta).toEqual({ sextant: 'market-data', version: 1, kind: 'funding', symbols: ['cmt_btcusdt', 'cmt_ethusdt'], source: 'download test F16', fromMs: newest - 99 * CYCLE, toMs: NOW + 1 });
    expect(file.rows.slice(0, 2).map((x) => [x.symbol, x.fundingTimeMs])).toEqual([['cmt_btcusdt', newest - 99 * CYCLE], ['cmt_ethusdt', newest - 99 * CYCLE]]);
    const served = await venue.fundingHistory('cmt_btcusdt', 100);
    expect(file.rows.filter((x) => x.symbol === 'cmt_btcusdt')).toEqual(served.reverse().map((x) => ({ symbol: 'cmt_btcusdt', fundingTimeMs: x.fundingTimeMs, rate: x.rate.toString() })));
  });

  it('run again later, merges the new settlements in; a hole F16 can no longer serve is named', async () => {
    const clock = new ManualClock(NOW);
    const venue = new FundingVenue(clock);
    const out = newFile();
    await downloadFunding(venue, { out, symbols: ['cmt_btcusdt'], venue: 'test', clock, limit: 10 });
    // Two settlements later: two new ones, the eight others already held.
    clock.set(NOW + 2 * CYCLE);
    const again = await downloadFunding(venue, { out, symbols: ['cmt_btcusdt'], venue: 'test', clock, limit: 10 });
    expect(again).toMatchObject({ rates: 12, fetched: 2, notes: [] });
    const rows = readFundingFile(out).rows.map((x) => x.fundingTimeMs);
    expect(rows.slice(1).every((t, i) => t - rows[i]! === CYCLE)).toBe(true);
    // Twenty settlements later, ten asked: the ten between are gone from F16.
    clock.set(NOW + 22 * CYCLE);
    const late = await downloadFunding(venue, { out, symbols: ['cmt_btcusdt'], venue: 'test', clock, limit: 10 });
    expect(late.fetched).toBe(10);
    expect(late.notes).toEqual([expect.stringMatching(/^cmt_btcusdt: F16 serves settlements from \S+ on; .* held them up to \S+: any between are missing$/)]);
    expect(readFundingFile(out).meta.fromMs).toBe(rows[0]);
  });

  it('refuses to merge into a file of other symbols, another venue or another kind', async () => {
    const clock = new ManualClock(NOW);
    const venue = new FundingVenue(clock);
    const out = newFile();
    await downloadFunding(venue, { out, symbols: ['cmt_btcusdt'], venue: 'test', clock });
    const before = readFileSync(out, 'utf8');
    await expect(downloadFunding(venue, { out, symbols: ['cmt_ethusdt'], venue: 'test', clock })).rejects.toThrow(`${out} exists and cannot be resumed: it holds funding rates of cmt_btcusdt, not funding rates of cmt_ethusdt; choose another output file`);
    await expect(downloadFunding(venue, { out, symbols: ['cmt_btcusdt'], venue: 'other', clock })).rejects.toThrow('it was written by "download test F16", not "download other F16"');
    expect(readFileSync(out, 'utf8')).toBe(before);
    const candles = newFile();
    writeDataFile(candles, dataFileMeta({ kind: 'candles', timeframe: '1m', symbols: ['cmt_btcusdt'], source: 'download test F11' }), []);
    await expect(downloadFunding(venue, { out: candles, symbols: ['cmt_btcusdt'], venue: 'test', clock })).rejects.toThrow(DownloadRefusal);
  });
});
