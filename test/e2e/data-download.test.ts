// `sextant data download` against `sextant sim` (a seeded synthetic past on F11), as a user runs it: a window
// downloaded in two runs is the file one run writes (the second asks only for what the first left out, nothing
// twice), a file of another timeframe is not resumed, and `sextant backtest` replays the candles into bars equal to
// the candles' own and writes its report, and refuses bars finer than the candles. `--kind funding` writes the
// settlements F16 serves, and a backtest charges a position held across one at the downloaded rate.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readCandleFile, readDataFileMeta, readFundingFile, type CandleRow } from '../../src/data/data-file.js';
import { Decimal } from '../../src/domain/decimal.js';
import { runCli, startSimProcess, type CliRun, type SimProcess } from '../fixtures/cli.js';

const M = 60_000;
const H = 60 * M;
const dir = mkdtempSync(join(tmpdir(), 'sextant-download-'));
const cfg = join(dir, 'download.yaml');
let sim: SimProcess;
let url: string;
/** The window: five whole hours that ended at least an hour ago. */
const A = Math.floor(Date.now() / H) * H - 6 * H;
const iso = (ms: number) => new Date(ms).toISOString();

beforeAll(async () => {
  sim = await startSimProcess();
  url = sim.url;
  writeFileSync(cfg, `sim: { embedded: false }\nexchange: { spotBaseUrl: "${url}", futuresBaseUrl: "${url}" }\n`);
}, 20_000);

afterAll(async () => {
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

const sextant = (args: string[]): Promise<CliRun> => runCli(args, { PATH: process.env.PATH });

function download(out: string, fromMs: number, toMs: number, timeframe = '1m'): Promise<CliRun> {
  return sextant([
    'data',
    'download',
    '--config',
    cfg,
    '--symbol',
    'cmt_btcusdt',
    '--timeframe',
    timeframe,
    '--from',
    iso(fromMs),
    '--to',
    iso(toMs),
    '--out',
    out,
  ]);
}

/** The 1m candles of [openMs, openMs + 5 min) aggregated as a 5m bar would be. */
function fiveMinutes(rows: CandleRow[], openMs: number) {
  const inBar = rows.filter((r) => r.ts >= openMs && r.ts < openMs + 5 * M);
  if (inBar.length !== 5) return undefined;
  const max = (a: string, b: string) => (Decimal.from(a).gt(Decimal.from(b)) ? a : b);
  const min = (a: string, b: string) => (Decimal.from(a).lt(Decimal.from(b)) ? a : b);
  return { open: inBar[0]!.open, high: inBar.map((r) => r.high).reduce(max), low: inBar.map((r) => r.low).reduce(min), close: inBar[4]!.close };
}

describe('sextant data download', () => {
  const split = join(dir, 'split.jsonl');
  const whole = join(dir, 'whole.jsonl');

  it('downloads a window in two runs: the second fills what the first left out, duplicating nothing', async () => {
    const first = await download(split, A + 2 * H, A + 3 * H);
    expect(first.stderr).toContain('sextant data download: 1m candles of cmt_btcusdt from');
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(
      `${split}: 60 1m candles of cmt_btcusdt, ${iso(A + 2 * H).replace('.000Z', 'Z')} to ${iso(A + 3 * H).replace('.000Z', 'Z')}; 60 new from 1 F11 request\n`,
    );

    const second = await download(split, A, A + 5 * H);
    expect(second.code).toBe(0);
    // [A, A+2h) and [A+3h, A+5h): 240 candles, 100 a request at most.
    expect(second.stdout).toMatch(/: 300 1m candles of cmt_btcusdt, .*; 240 new from [34] F11 requests\n$/);

    const file = readCandleFile(split);
    expect(file.meta).toEqual({
      sextant: 'market-data',
      version: 1,
      kind: 'candles',
      timeframe: '1m',
      symbols: ['cmt_btcusdt'],
      source: `download ${url} F11`,
      fromMs: A,
      toMs: A + 5 * H,
    });
    expect(file.rows.map((r) => r.ts)).toEqual(Array.from({ length: 300 }, (_, i) => A + i * M));

    // One run over the whole window writes the same file, byte for byte.
    const one = await download(whole, A, A + 5 * H);
    expect(one.code).toBe(0);
    expect(readFileSync(whole, 'utf8')).toBe(readFileSync(split, 'utf8'));
  }, 60_000);

  it('refuses to resume a file of another timeframe, leaving it untouched', async () => {
    const before = readFileSync(whole, 'utf8');
    const r = await download(whole, A, A + 5 * H, '5m');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `sextant data download: ${whole} exists and cannot be resumed: it holds 1m candles of cmt_btcusdt, not 5m candles of cmt_btcusdt; choose another output file`,
    );
    expect(readFileSync(whole, 'utf8')).toBe(before);
  }, 30_000);

  it("a backtest replays the candles: bars equal to the candles' own, a report; bars finer than the candles are refused", async () => {
    const backtestConfig = (file: string, timeframe: string) => {
      const f = join(dir, `bt-${timeframe}.yaml`);
      writeFileSync(
        f,
        [
          'mode: backtest',
          `backtest: { data: ${JSON.stringify(file)}, out: ${JSON.stringify(join(dir, `report-${timeframe}`))} }`,
          `strategyDirs: [${JSON.stringify(resolve('test/fixtures/strategies'))}]`,
          `strategies:\n  - { id: bars, name: bar-log, symbols: [cmt_btcusdt], timeframes: [${timeframe}] }`,
          'log: { level: info }',
          '',
        ].join('\n'),
      );
      return f;
    };
    const bt = await sextant(['backtest', '--config', backtestConfig(whole, '5m')]);
    expect(bt.code).toBe(0);
    const out = join(dir, 'report-5m');
    for (const f of ['report.json', 'report.html', 'trades.csv', 'equity.csv']) expect(existsSync(join(out, f))).toBe(true);
    // The 5m bars the strategy was given are the 1m candles aggregated: read from the market, not made up.
    const rows = readCandleFile(whole).rows;
    const bars = bt.stderr
      .split('\n')
      .filter((l) => l.includes('"msg":"bar"'))
      .map((l) => JSON.parse(l) as { openMs: number; open: string; high: string; low: string; close: string });
    const whole5m = bars.filter((b) => b.openMs > A && b.openMs + 5 * M < A + 5 * H);
    expect(whole5m.length).toBeGreaterThanOrEqual(50);
    for (const b of whole5m)
      expect({ openMs: b.openMs, open: b.open, high: b.high, low: b.low, close: b.close }).toEqual({ openMs: b.openMs, ...fiveMinutes(rows, b.openMs) });

    // 5m candles cannot feed 1m bars.
    const coarse = join(dir, 'coarse.jsonl');
    expect((await download(coarse, A, A + 5 * H, '5m')).code).toBe(0);
    expect(readDataFileMeta(coarse)).toMatchObject({ kind: 'candles', timeframe: '5m' });
    const refused = await sextant(['backtest', '--config', backtestConfig(coarse, '1m')]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`strategy bars asks for 1m bars; ${coarse} holds 5m candles: the bars would be made up`);
    expect(existsSync(join(dir, 'report-1m', 'report.json'))).toBe(false);
  }, 90_000);
});

describe('sextant data download --kind funding', () => {
  const funding = join(dir, 'funding.jsonl');
  const fundingOf = (args: string[] = []) =>
    sextant(['data', 'download', '--config', cfg, '--kind', 'funding', '--symbol', 'cmt_btcusdt', '--out', funding, ...args]);

  it('writes the latest 100 settlements F16 serves, as the venue answers them, and says that is all there is', async () => {
    const r = await fundingOf();
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('F16: the latest 100 settlements of each');
    const file = readFundingFile(funding);
    expect(file.meta).toMatchObject({ kind: 'funding', symbols: ['cmt_btcusdt'], source: `download ${url} F16` });
    expect(r.stdout).toMatch(
      new RegExp(`^${funding.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: 100 funding rates of cmt_btcusdt, .*; 100 new from 1 F16 request\n$`),
    );
    // The venue's own answer, over HTTP: the same settlements and rates, oldest first in the file.
    const served = (await (await fetch(`${url}/capi/v2/market/getHistoryFundRate?symbol=cmt_btcusdt&limit=100`)).json()) as Array<{
      symbol: string;
      fundingRate: string;
      fundingTime: number;
    }>;
    expect(file.rows).toEqual(
      served.map((x) => ({ symbol: x.symbol, fundingTimeMs: Number(x.fundingTime), rate: x.fundingRate })).sort((a, b) => a.fundingTimeMs - b.fundingTimeMs),
    );
    expect(file.rows.slice(1).every((x, i) => x.fundingTimeMs - file.rows[i]!.fundingTimeMs === 8 * H)).toBe(true);
    // Again: nothing new yet; a time window or a timeframe has no meaning for F16.
    expect((await fundingOf()).stdout).toContain('; 0 new from 1 F16 request');
    const windowed = await fundingOf(['--from', iso(A)]);
    expect(windowed.code).toBe(1);
    expect(windowed.stderr).toContain('--from, --to, --latest: F16 takes no time window; it serves the latest 100 settlements of a contract');
    const spot = await sextant([
      'data',
      'download',
      '--config',
      cfg,
      '--kind',
      'funding',
      '--symbol',
      'BTCUSDT_SPBL',
      '--out',
      join(dir, 'spot-funding.jsonl'),
    ]);
    expect(spot.code).toBe(1);
    expect(spot.stderr).toContain('BTCUSDT_SPBL: spot pairs have no funding rates (futures contracts only)');
  }, 30_000);

  it("a backtest naming the file charges a long held across a settlement its downloaded rate, at the settlement's price", async () => {
    // An hour either side of the latest settlement at least two hours old.
    const settlementMs = Math.floor((Date.now() - 2 * H) / (8 * H)) * (8 * H);
    const candles = join(dir, 'around-settlement.jsonl');
    expect((await download(candles, settlementMs - H, settlementMs + H)).code).toBe(0);
    const out = join(dir, 'report-funding');
    const config = join(dir, 'bt-funding.yaml');
    writeFileSync(
      config,
      [
        'mode: backtest',
        `backtest: { data: ${JSON.stringify(candles)}, out: ${JSON.stringify(out)}, funding: [${JSON.stringify(funding)}] }`,
        `strategyDirs: [${JSON.stringify(resolve('test/fixtures/strategies'))}]`,
        'strategies:\n  - { id: hold, name: hold-long, symbols: [cmt_btcusdt], params: { size: "0.01" } }',
        '',
      ].join('\n'),
    );
    const bt = await sextant(['backtest', '--config', config]);
    expect(bt.code).toBe(0);
    const rows = readFileSync(join(out, 'trades.csv'), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','));
    const charged = rows.filter((t) => t[10] === 'funding');
    const rate = readFundingFile(funding).rows.find((x) => x.fundingTimeMs === settlementMs)!.rate;
    // Settled on the tick at the settlement, the open of its candle (mark = the trade: the mark model's default basis is 0).
    const open = readCandleFile(candles).rows.find((x) => x.ts === settlementMs)!.open;
    expect(charged.map((t) => [Number(t[0]), t[12]])).toEqual([[settlementMs, rate]]);
    expect(Decimal.from(charged[0]![7]!).eq(Decimal.from(rate).mul(Decimal.from('0.01')).mul(Decimal.from(open)).neg())).toBe(true);
  }, 60_000);
});
