// The README's route from the venue's history to a report, as a user runs it: `sextant data download` of candles
// from `sextant sim`, then `sextant backtest` of the ema-cross example on them. A candle replays as four ticks a
// quarter of its timeframe apart; the backtest judges a price's age against that cadence (backtest.staleness:
// data-cadence, the default), so the strategy trades on 1m, 5m and 1h candles alike, and report.json and the summary
// say which limit applied. Judged as live instead (backtest.staleness: risk), every order on 1m candles is stale.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runCli, startSimProcess, type CliRun, type SimProcess } from '../fixtures/cli.js';

const H = 3_600_000;
const dir = mkdtempSync(join(tmpdir(), 'sextant-candle-bt-'));
const venueCfg = join(dir, 'venue.yaml');
let sim: SimProcess;
const END = Math.floor(Date.now() / H) * H - H;
const iso = (ms: number) => new Date(ms).toISOString();
const sextant = (args: string[]): Promise<CliRun> => runCli(args, { PATH: process.env.PATH });

beforeAll(async () => {
  sim = await startSimProcess();
  const { url } = sim;
  writeFileSync(venueCfg, `sim: { embedded: false }\nexchange: { spotBaseUrl: "${url}", futuresBaseUrl: "${url}" }\n`);
}, 20_000);

afterAll(async () => {
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Downloads `hours` of `timeframe` candles of cmt_ethusdt ending at END; the file's path. */
async function download(timeframe: string, hours: number): Promise<string> {
  const out = join(dir, `eth-${timeframe}.jsonl`);
  const args = [
    'data',
    'download',
    '--config',
    venueCfg,
    '--symbol',
    'cmt_ethusdt',
    '--timeframe',
    timeframe,
    '--from',
    iso(END - hours * H),
    '--to',
    iso(END),
  ];
  const r = await sextant([...args, '--out', out]);
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: expect.stringMatching(/^sextant data download: \S+ candles of cmt_ethusdt from /) });
  return out;
}

/** config/examples/ema-cross.yaml on `data`, its bars and params of `timeframe`; `extra` lines under backtest. */
function exampleOn(data: string, timeframe: string, staleness?: string): string {
  const file = join(dir, `ema-cross-${timeframe}-${staleness ?? 'default'}.yaml`);
  const text = readFileSync('config/examples/ema-cross.yaml', 'utf8')
    .replace(/^strategyDirs:.*$/m, '')
    .replace('timeframes: [1m]', `timeframes: [${timeframe}]`)
    .replace('timeframe: 1m,', `timeframe: ${timeframe},`)
    .replace(/^backtest:\n/m, `backtest:\n${staleness ? `  staleness: ${staleness}\n` : ''}`);
  // ema-cross is a shipped example: found whatever strategyDirs says.
  writeFileSync(file, text);
  return file;
}

interface Report {
  metrics: { fills: number };
  denied: Record<string, number>;
  staleness: { rule: string; staleAfterMs: number; bySymbol: Record<string, { data: string; staleAfterMs: number }> };
}

async function backtest(config: string, data: string, name: string): Promise<{ run: CliRun; report: Report }> {
  const out = join(dir, name);
  const run = await sextant(['backtest', '--config', config, '--data', data, '--out', out]);
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
  return { run, report: JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report };
}

describe('backtests on downloaded candles', () => {
  it.each([
    ['1m', 5, 15_000],
    ['5m', 12, 75_000],
    ['1h', 72, 900_000],
  ])(
    'ema-cross trades on %s candles, its prices judged by the data’s cadence',
    async (timeframe, hours, quarterMs) => {
      const data = await download(timeframe, hours);
      const { run, report } = await backtest(exampleOn(data, timeframe), data, `report-${timeframe}`);
      expect(report.metrics.fills).toBeGreaterThan(0);
      expect(report.denied['stale-price']).toBeUndefined();
      // A quarter candle, plus the tickers poll (daemon.polls.tickersMs: 1000) and the example's latency (50 ms).
      expect(report.staleness).toEqual({
        rule: 'data-cadence',
        staleAfterMs: 10_000,
        bySymbol: { cmt_ethusdt: { data: `${timeframe} candles`, staleAfterMs: quarterMs + 1050 } },
      });
      expect(run.stdout).toContain(
        `stale prices: by the data's cadence, cmt_ethusdt (${timeframe} candles) after ${quarterMs + 1050} ms; other symbols risk.staleAfterMs 10000 ms`,
      );
    },
    120_000,
  );

  it('judged as live (backtest.staleness: risk), the same 1m candles price no order: every one is stale', async () => {
    const data = join(dir, 'eth-1m.jsonl');
    const { run, report } = await backtest(exampleOn(data, '1m', 'risk'), data, 'report-1m-risk');
    expect(report.metrics.fills).toBe(0);
    expect(report.denied['stale-price']).toBeGreaterThan(0);
    expect(report.staleness).toEqual({ rule: 'risk', staleAfterMs: 10_000, bySymbol: {} });
    expect(run.stdout).toContain('stale prices: risk.staleAfterMs 10000 ms (backtest.staleness: risk)');
  }, 60_000);
});
