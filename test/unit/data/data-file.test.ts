// Data files say what they are: the header line, tick and candle files read as replay records (candles along the
// intrabar path of the header's timeframe, in time order; recorded mark and index carried through), funding files,
// the checks on rows, and the pairing with strategies and with the simulator's contracts.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { candleTicks, dataFileMeta, readCandleFile, readDataFileMeta, readFundingFile, sortedFunding, writeDataFile, type CandleRow, type DataFileMeta } from '../../../src/data/data-file.js';
import { checkDataPairing, replayedFunding } from '../../../src/data/data-pairing.js';
import { Decimal } from '../../../src/domain/decimal.js';
import { readReplayFile, writeReplayFile } from '../../../src/data/replay-file.js';
import { DEFAULT_INSTRUMENTS } from '../../../src/exchange/sim/instruments.js';
import { ReplayMarket } from '../../../src/exchange/sim/market.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-data-file-'));
const H = 3_600_000;
const T0 = Date.UTC(2026, 0, 5);

const candle = (symbol: string, ts: number, open: string, high: string, low: string, close: string, volume: string): CandleRow => ({ ts, symbol, open, high, low, close, volume });

describe('the header', () => {
  it('is the first line of a tick file, written with its keys in order, read back, and not replayed', () => {
    const f = join(dir, 'ticks.jsonl');
    const meta = dataFileMeta({ kind: 'ticks', symbols: ['BTCUSDT_SPBL'], source: 'synth seed 7', fromMs: T0, toMs: T0 + H });
    writeReplayFile(f, meta, [{ ts: T0, symbol: 'BTCUSDT_SPBL', price: '90000', size: '0.1' }]);
    expect(readFileSync(f, 'utf8').split('\n')[0]).toBe(`{"sextant":"market-data","version":1,"kind":"ticks","symbols":["BTCUSDT_SPBL"],"source":"synth seed 7","fromMs":${T0},"toMs":${T0 + H}}`);
    expect(readDataFileMeta(f)).toEqual(meta);
    expect(readReplayFile(f)).toEqual([{ ts: T0, symbol: 'BTCUSDT_SPBL', price: '90000', size: '0.1' }]);
  });

  it('a file without one (older, hand-made) loads as ticks of unknown origin; an empty file too', () => {
    const f = join(dir, 'bare.jsonl');
    writeFileSync(f, '\n{"ts":1,"symbol":"X","price":"1","size":"1"}\n');
    expect(readDataFileMeta(f)).toBeNull();
    expect(readReplayFile(f)).toEqual([{ ts: 1, symbol: 'X', price: '1', size: '1' }]);
    writeFileSync(f, '');
    expect(readDataFileMeta(f)).toBeNull();
    expect(readReplayFile(f)).toEqual([]);
  });

  it('a malformed header, one of a later version, or one after the first line is an error naming file and line', () => {
    const f = join(dir, 'bad-header.jsonl');
    const cases: Array<[string, string]> = [
      ['{"sextant":"market-data","version":2,"kind":"ticks","symbols":[],"source":"x"}', `${f}:1: a market data file of version 2; this sextant reads version 1`],
      ['{"sextant":"market-data","version":1,"kind":"bars","symbols":[],"source":"x"}', `${f}:1: not a market data header: "kind" is "bars", expected "ticks", "candles" or "funding"`],
      ['{"sextant":"market-data","version":1,"kind":"candles","timeframe":"3m","symbols":["X"],"source":"x"}', `${f}:1: not a market data header: "timeframe" is "3m": candles need one of 1m, 5m, 15m, 30m, 1h, 2h, 4h, 6h, 8h, 12h, 1d, 1w`],
      ['{"sextant":"market-data","version":1,"kind":"ticks","symbols":"X","source":"x"}', `${f}:1: not a market data header: "symbols" is not a list of symbols`],
      ['{"sextant":"nope"}', `${f}:1: not a market data header: "sextant" is "nope", expected "market-data"`],
    ];
    for (const [line, message] of cases) {
      writeFileSync(f, `${line}\n`);
      expect(() => readDataFileMeta(f)).toThrow(message);
      expect(() => readReplayFile(f)).toThrow(message);
    }
    writeFileSync(f, '{"ts":1,"symbol":"X","price":"1","size":"1"}\n{"sextant":"market-data","version":1,"kind":"ticks","symbols":["X"],"source":"x"}\n');
    expect(() => readReplayFile(f)).toThrow(`${f}:2: a header line after the first line`);
  });
});

describe('candle files', () => {
  const meta = (timeframe: '1h' | '1w', symbols: string[]): DataFileMeta => dataFileMeta({ kind: 'candles', timeframe, symbols, source: 'download test F11' });

  it('replay each bar along its intrabar path at quarters of the header\'s timeframe (not the gap to the next bar), symbols interleaved in time order', () => {
    const f = join(dir, 'candles.jsonl');
    writeDataFile(f, meta('1h', ['BTCUSDT_SPBL', 'cmt_ethusdt']), [
      candle('BTCUSDT_SPBL', T0, '100', '110', '95', '105', '8'),
      candle('cmt_ethusdt', T0, '30', '31', '28', '29', '0.001'),
      // Three hours later: the hours between are missing, the bar still lasts one hour.
      candle('BTCUSDT_SPBL', T0 + 3 * H, '105', '105', '105', '105', '0'),
    ]);
    const ticks = readReplayFile(f).map((r) => [(r.ts - T0) / 60_000, r.symbol, r.price, r.size]);
    expect(ticks).toEqual([
      [0, 'BTCUSDT_SPBL', '100', '2'], [0, 'cmt_ethusdt', '30', '0.00025'],
      [15, 'BTCUSDT_SPBL', '95', '2'], [15, 'cmt_ethusdt', '31', '0.00025'], // up bar low first; down bar high first
      [30, 'BTCUSDT_SPBL', '110', '2'], [30, 'cmt_ethusdt', '28', '0.00025'],
      [45, 'BTCUSDT_SPBL', '105', '2'], [45, 'cmt_ethusdt', '29', '0.00025'],
      // A bar that traded nothing: its ticks carry the smallest size (a replay record is a trade).
      [180, 'BTCUSDT_SPBL', '105', '0.000001'], [195, 'BTCUSDT_SPBL', '105', '0.000001'], [210, 'BTCUSDT_SPBL', '105', '0.000001'], [225, 'BTCUSDT_SPBL', '105', '0.000001'],
    ]);
    // The replay market takes them as they come, in order.
    const market = new ReplayMarket(DEFAULT_INSTRUMENTS, readReplayFile(f));
    expect(market.length).toBe(12);
    expect(readCandleFile(f).rows).toHaveLength(3);
  });

  it('the path splits the volume exactly and follows a week bar over its own length', () => {
    const ticks = candleTicks(candle('X', T0, '1', '1.5', '0.5', '1', '0.0000000003'), 7 * 24 * H);
    expect(ticks.map((t) => [(t.ts - T0) / H, t.price, t.size])).toEqual([[0, '1', '0.000000000075'], [42, '0.5', '0.000000000075'], [84, '1.5', '0.000000000075'], [126, '1', '0.000000000075']]);
  });

  it('rows out of order, too close together, of a symbol not in the header, or with bad prices are refused with file and line', () => {
    const f = join(dir, 'bad-candles.jsonl');
    const cases: Array<[CandleRow[], string]> = [
      [[candle('A', T0 + H, '1', '1', '1', '1', '1'), candle('A', T0, '1', '1', '1', '1', '1')], `${f}:3: candles out of time order (2026-01-05T00:00:00Z after 2026-01-05T01:00:00Z)`],
      [[candle('A', T0, '1', '1', '1', '1', '1'), candle('A', T0 + H / 2, '1', '1', '1', '1', '1')], `${f}:3: A candle at 2026-01-05T00:30:00Z is less than 1h after the one at 2026-01-05T00:00:00Z`],
      [[candle('B', T0, '1', '1', '1', '1', '1')], `${f}:2: symbol B is not among the header's symbols (A)`],
      [[candle('A', T0, '1', '0.9', '1', '1', '1')], `${f}:2: high and low do not bound open and close`],
      [[candle('A', T0, '1', '1', '1', '1', '-1')], `${f}:2: volume "-1" is not a non-negative decimal`],
    ];
    for (const [rows, message] of cases) {
      writeDataFile(f, meta('1h', ['A']), rows);
      expect(() => readReplayFile(f)).toThrow(message);
    }
    writeFileSync(f, `${JSON.stringify(meta('1h', ['A']))}\n{"ts":1,"symbol":"A","price":"1","size":"1"}\n`);
    expect(() => readReplayFile(f)).toThrow(`${f}:2: expected {"ts": number, "symbol": string, "open", "high", "low", "close", "volume": decimal strings}`);
  });

  it('readCandleFile refuses a tick file', () => {
    const f = join(dir, 'not-candles.jsonl');
    writeReplayFile(f, dataFileMeta({ kind: 'ticks', symbols: ['A'], source: 'synth seed 1' }), []);
    expect(() => readCandleFile(f)).toThrow(`${f}: not a candle file (it holds ticks of A)`);
  });
});

describe('checkDataPairing', () => {
  const candles = dataFileMeta({ kind: 'candles', timeframe: '1h', symbols: ['cmt_btcusdt'], source: 'download x F11', fromMs: T0, toMs: T0 + 24 * H });
  const ticks = dataFileMeta({ kind: 'ticks', symbols: ['cmt_btcusdt', 'BTCUSDT_SPBL'], source: 'record x' });
  const demand = (timeframes: Array<[string, '1m' | '1h' | '4h' | '6h' | '1d']>, symbols: Array<[string, string]> = [['trend', 'cmt_btcusdt']]) => ({
    file: 'btc.jsonl', symbols: symbols.map(([strategy, symbol]) => ({ strategy, symbol })), timeframes: timeframes.map(([strategy, timeframe]) => ({ strategy, timeframe })),
  });

  it('says nothing about a file that does not say what it holds', () => {
    expect(checkDataPairing(null, demand([['trend', '1m']], [['mm', 'ANY']]))).toEqual([]);
  });

  it('accepts bars that are whole numbers of the candles, and any bars from ticks', () => {
    expect(checkDataPairing(candles, demand([['trend', '1h'], ['slow', '4h'], ['daily', '1d']]))).toEqual([]);
    expect(checkDataPairing(ticks, demand([['trend', '1m']], [['trend', 'cmt_btcusdt'], ['mm', 'BTCUSDT_SPBL']]))).toEqual([]);
  });

  it('refuses bars finer than the candles, or not a whole number of them', () => {
    const four = dataFileMeta({ ...candles, timeframe: '4h' });
    expect(checkDataPairing(candles, demand([['trend', '1m'], ['trend', '1m']]))).toEqual(['strategy trend asks for 1m bars; btc.jsonl holds 1h candles: the bars would be made up']);
    expect(checkDataPairing(four, demand([['trend', '6h']]))).toEqual(['strategy trend asks for 6h bars; btc.jsonl holds 4h candles: a 6h bar is not a whole number of 4h candles']);
  });

  it('names each symbol traded that the file does not hold, with who trades it', () => {
    expect(checkDataPairing(candles, demand([], [['trend', 'cmt_btcusdt'], ['grid', 'cmt_ethusdt'], ['mm', 'cmt_ethusdt'], ['dca', 'BTCUSDT_SPBL']]))).toEqual([
      'btc.jsonl holds 1h candles of cmt_btcusdt: no data for cmt_ethusdt, which strategies grid, mm trade',
      'btc.jsonl holds 1h candles of cmt_btcusdt: no data for BTCUSDT_SPBL, which strategy dca trades',
    ]);
  });

  it('refuses a replay window outside the span the file covers', () => {
    expect(checkDataPairing(candles, { ...demand([]), fromMs: T0 + 24 * H })).toEqual([
      'btc.jsonl covers 2026-01-05T00:00:00Z to 2026-01-06T00:00:00Z; the window asked for (2026-01-06T00:00:00Z to its end) lies outside it',
    ]);
    expect(checkDataPairing(candles, { ...demand([]), fromMs: T0 + H, toMs: T0 + 2 * H })).toEqual([]);
  });
});

describe('recorded mark and index prices', () => {
  it('ride along ticks as given and reach the replay market, in ticks of the contract', () => {
    const f = join(dir, 'marked.jsonl');
    writeReplayFile(f, dataFileMeta({ kind: 'ticks', symbols: ['cmt_btcusdt'], source: 'record x' }), [
      { ts: T0, symbol: 'cmt_btcusdt', price: '90000', size: '0.1', mark: '90010.1', index: '89990' },
      { ts: T0 + 1000, symbol: 'cmt_btcusdt', price: '90001', size: '0.1' },
    ]);
    const records = readReplayFile(f);
    expect(records[0]).toEqual({ ts: T0, symbol: 'cmt_btcusdt', price: '90000', size: '0.1', mark: '90010.1', index: '89990' });
    const market = new ReplayMarket(DEFAULT_INSTRUMENTS, records);
    const btc = market.symbols.find((m) => m.spec.symbol === 'cmt_btcusdt')!;
    const seen: Array<[number, number]> = [];
    market.advanceTo(T0 + 1000, (m) => seen.push([m.markTicks, m.indexTicks]));
    expect(seen[0]).toEqual([Decimal.stepsOf('90010.1', btc.tickSize), Decimal.stepsOf('89990', btc.tickSize)]);
    // A record without them leaves the mark to the simulator's model.
    expect(seen[1]).toEqual([0, 0]);
  });

  it('a candle\'s mark and index are its close\'s: only the close tick carries them', () => {
    const ticks = candleTicks({ ...candle('cmt_btcusdt', T0, '100', '110', '95', '105', '8'), mark: '104.5', index: '104.9' }, H);
    expect(ticks.map((t) => [t.price, t.mark, t.index])).toEqual([['100', undefined, undefined], ['95', undefined, undefined], ['110', undefined, undefined], ['105', '104.5', '104.9']]);
    const f = join(dir, 'marked-candles.jsonl');
    writeDataFile(f, dataFileMeta({ kind: 'candles', timeframe: '1h', symbols: ['cmt_btcusdt'], source: 'x' }), [{ ...candle('cmt_btcusdt', T0, '100', '110', '95', '105', '8'), mark: '104.5' }]);
    expect(readReplayFile(f).map((r) => r.mark)).toEqual([undefined, undefined, undefined, '104.5']);
    expect(readCandleFile(f).rows[0]).toEqual({ ...candle('cmt_btcusdt', T0, '100', '110', '95', '105', '8'), mark: '104.5' });
  });

  it('must be positive decimal strings', () => {
    const f = join(dir, 'bad-mark.jsonl');
    writeFileSync(f, '{"ts":1,"symbol":"cmt_btcusdt","price":"1","size":"1","mark":1}\n');
    expect(() => readReplayFile(f)).toThrow(`${f}:1: mark 1 is not a positive decimal string`);
    writeDataFile(f, dataFileMeta({ kind: 'candles', timeframe: '1h', symbols: ['A'], source: 'x' }), [{ ...candle('A', T0, '1', '1', '1', '1', '1'), index: '0' }]);
    expect(() => readReplayFile(f)).toThrow(`${f}:2: index "0" is not a positive decimal string`);
  });
});

describe('funding files', () => {
  const meta = (symbols: string[]) => dataFileMeta({ kind: 'funding', symbols, source: 'download x F16', fromMs: T0, toMs: T0 + 24 * H });
  const rate = (symbol: string, fundingTimeMs: number, r: string) => ({ symbol, fundingTimeMs, rate: r });

  it('hold settled rates in time order, read back whole; their header says so', () => {
    const f = join(dir, 'funding.jsonl');
    const rows = sortedFunding([rate('cmt_ethusdt', T0 + 8 * H, '-0.0000500'), rate('cmt_btcusdt', T0 + 8 * H, '0.0001028'), rate('cmt_btcusdt', T0, '0.0001'), rate('cmt_btcusdt', T0, '0.5')]);
    // One row per symbol and time (the first given kept), by time then symbol.
    expect(rows).toEqual([rate('cmt_btcusdt', T0, '0.0001'), rate('cmt_btcusdt', T0 + 8 * H, '0.0001028'), rate('cmt_ethusdt', T0 + 8 * H, '-0.0000500')]);
    writeDataFile(f, meta(['cmt_btcusdt', 'cmt_ethusdt']), rows);
    expect(readFileSync(f, 'utf8').split('\n')[1]).toBe(`{"symbol":"cmt_btcusdt","fundingTimeMs":${T0},"rate":"0.0001"}`);
    expect(readFundingFile(f)).toEqual({ meta: meta(['cmt_btcusdt', 'cmt_ethusdt']), rows });
  });

  it('are not market data: a replay, a candle read or the pairing refuse one, saying where it goes', () => {
    const f = join(dir, 'funding-not-data.jsonl');
    writeDataFile(f, meta(['cmt_btcusdt']), [rate('cmt_btcusdt', T0, '0.0001')]);
    expect(() => readReplayFile(f)).toThrow(`${f} holds funding rates of cmt_btcusdt, not market data to replay (a backtest names funding files under backtest.funding)`);
    expect(() => readCandleFile(f)).toThrow(`${f}: not a candle file (it holds funding rates of cmt_btcusdt)`);
    expect(checkDataPairing(meta(['cmt_btcusdt']), { file: 'f.jsonl', symbols: [], timeframes: [] })).toEqual(['f.jsonl holds funding rates of cmt_btcusdt, not market data to replay: name it under backtest.funding']);
    const ticks = join(dir, 'ticks-not-funding.jsonl');
    writeReplayFile(ticks, dataFileMeta({ kind: 'ticks', symbols: ['A'], source: 'x' }), []);
    expect(() => readFundingFile(ticks)).toThrow(`${ticks}: not a funding file (it holds ticks of A)`);
  });

  it('rows out of order, of another symbol, or without a decimal rate are refused with file and line', () => {
    const f = join(dir, 'bad-funding.jsonl');
    const cases: Array<[object[], string]> = [
      [[rate('cmt_btcusdt', T0 + 8 * H, '0.1'), rate('cmt_btcusdt', T0, '0.1')], `${f}:3: funding rates out of time order (2026-01-05T00:00:00Z after 2026-01-05T08:00:00Z)`],
      [[rate('cmt_ethusdt', T0, '0.1')], `${f}:2: symbol cmt_ethusdt is not among the header's symbols (cmt_btcusdt)`],
      [[{ symbol: 'cmt_btcusdt', fundingTimeMs: T0, rate: 0.1 }], `${f}:2: expected {"symbol": string, "fundingTimeMs": number, "rate": decimal string}`],
      [[rate('cmt_btcusdt', T0, '1e-4')], `${f}:2: expected {"symbol": string, "fundingTimeMs": number, "rate": decimal string}`],
    ];
    for (const [rows, message] of cases) {
      writeDataFile(f, meta(['cmt_btcusdt']), rows);
      expect(() => readFundingFile(f)).toThrow(message);
    }
  });

  it('feed a backtest their contracts\' settlements; other files, other symbols and disagreements are named', () => {
    const a = join(dir, 'funding-a.jsonl');
    const b = join(dir, 'funding-b.jsonl');
    const notFunding = join(dir, 'funding-ticks.jsonl');
    writeDataFile(a, meta(['cmt_btcusdt', 'BTCUSDT_SPBL']), [rate('cmt_btcusdt', T0, '0.0001'), rate('BTCUSDT_SPBL', T0, '0.1'), rate('cmt_btcusdt', T0 + 8 * H, '-0.0002')]);
    writeDataFile(b, meta(['cmt_btcusdt']), [rate('cmt_btcusdt', T0 - 8 * H, '0.0003'), rate('cmt_btcusdt', T0, '0.0001')]);
    writeReplayFile(notFunding, dataFileMeta({ kind: 'ticks', symbols: ['A'], source: 'x' }), []);
    const futures = new Set(['cmt_btcusdt', 'cmt_ethusdt']);
    const ok = replayedFunding([a, b], futures);
    expect(ok.problems).toEqual([`backtest.funding: ${a} holds funding rates of BTCUSDT_SPBL, which is not a futures contract of the simulator`]);
    expect([...ok.bySymbol.keys()]).toEqual(['cmt_btcusdt']);
    expect(ok.bySymbol.get('cmt_btcusdt')!.map((x) => [x.settlementMs - T0, x.rate.toString()])).toEqual([[-8 * H, '0.0003'], [0, '0.0001'], [8 * H, '-0.0002']]);
    writeDataFile(b, meta(['cmt_btcusdt']), [rate('cmt_btcusdt', T0, '0.0004')]);
    expect(replayedFunding([a, b, notFunding], futures).problems).toEqual([
      `backtest.funding: ${a} holds funding rates of BTCUSDT_SPBL, which is not a futures contract of the simulator`,
      `backtest.funding: ${a} and ${b} give cmt_btcusdt at 2026-01-05T00:00:00Z different rates (0.0001, 0.0004)`,
      `backtest.funding: ${notFunding}: not a funding file (it holds ticks of A)`,
    ]);
  });
});
