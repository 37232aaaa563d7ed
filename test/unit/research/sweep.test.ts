// Sweeps on any JobRunner: the grid's combinations in a stable order, the jobs (config by absolute path, files by
// hash, run folders), the ranking (faults last, then strategy PnL, then grid order) and sweep.csv.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import type { BacktestJob, JobResult, JobRunner } from '../../../src/research/jobs.js';
import { combinations, rankSweep, runSweep, sweepJobs } from '../../../src/research/sweep.js';
import type { Metrics } from '../../../src/report/metrics.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-sweep-'));
const metrics = (pnl: string): Metrics =>
  ({
    strategyPnl: pnl,
    strategyReturnPct: '0',
    buyAndHoldPnl: '5',
    maxDrawdownPct: '1',
    sharpe: 0.5,
    sortino: 0.7,
    fills: 3,
    trades: 1,
    winRatePct: '100',
    profitFactor: 'inf',
    feesPaid: '0.1',
  }) as unknown as Metrics;
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('sweeps', () => {
  it('combinations: the last param varies fastest, in the order the values are written', () => {
    expect(combinations({ a: [1, 2], b: ['x', 'y', 'z'] })).toEqual([
      { a: 1, b: 'x' },
      { a: 1, b: 'y' },
      { a: 1, b: 'z' },
      { a: 2, b: 'x' },
      { a: 2, b: 'y' },
      { a: 2, b: 'z' },
    ]);
  });

  it('the jobs name the config by absolute path and carry the hashes of the config and data files', async () => {
    const config = join(dir, 'cfg.yaml');
    const data = join(dir, 'ticks.jsonl');
    writeFileSync(config, 'mode: backtest\n');
    writeFileSync(data, '{"ts":1}\n');
    const relativeConfig = relative(process.cwd(), config);
    const jobs = await sweepJobs({
      configFile: relativeConfig,
      spec: { strategy: 'mm', params: { k: [1, 2] } },
      outDir: relative(process.cwd(), join(dir, 'out')),
      range: { toMs: 5 },
      dataFiles: [data],
    });
    expect(jobs.map((j) => [j.id, j.params, j.outDir])).toEqual([
      ['run-001', { k: 1 }, join(dir, 'out', 'run-001')],
      ['run-002', { k: 2 }, join(dir, 'out', 'run-002')],
    ]);
    expect(jobs.every((j) => isAbsolute(j.configFile) && j.configFile === config)).toBe(true);
    expect(jobs[0]).toMatchObject({ strategy: 'mm', range: { toMs: 5 }, configHash: sha('mode: backtest\n'), dataHashes: { [data]: sha('{"ts":1}\n') } });
  });

  it('ranks runs that did not fault first, by strategy PnL (exact decimals), ties in grid order', () => {
    const spec = { strategy: 'mm', params: { k: [1, 2, 3, 4] } };
    const results: JobResult[] = [
      { id: 'run-001', metrics: metrics('10.5'), events: 1 },
      { id: 'run-002', metrics: metrics('99'), events: 1, fault: 'strategy mm faulted at T: boom' },
      { id: 'run-003', metrics: metrics('10.50000001'), events: 1 },
      { id: 'run-004', metrics: metrics('10.5'), events: 1 },
    ];
    expect(rankSweep(spec, results).map((r) => [r.rank, r.params.k, r.dir, r.fault ?? ''])).toEqual([
      [1, 3, 'run-003', ''],
      [2, 1, 'run-001', ''],
      [3, 4, 'run-004', ''],
      [4, 2, 'run-002', 'strategy mm faulted at T: boom'],
    ]);
  });

  it('runSweep hands the jobs to the runner and writes sweep.csv, run folders relative to the sweep folder', async () => {
    const config = join(dir, 'cfg2.yaml');
    writeFileSync(config, 'mode: backtest\n');
    const out = join(dir, 'sweep-out');
    const seen: BacktestJob[] = [];
    const runner: JobRunner = {
      run: async (jobs) => {
        seen.push(...jobs);
        return jobs.map((j) => ({ id: j.id, metrics: metrics(String(j.params.k)), events: 2, ...(j.params.k === 2 ? { fault: 'said "no"' } : {}) }));
      },
      close: async () => {},
    };
    mkdirSync(out, { recursive: true });
    const rows = await runSweep({ configFile: config, spec: { strategy: 'mm', params: { k: [1, 2, 3] } }, outDir: out, dataFiles: [] }, runner);
    expect(seen.map((j) => j.id)).toEqual(['run-001', 'run-002', 'run-003']);
    expect(rows.map((r) => r.rank)).toEqual([1, 2, 3]);
    expect(readFileSync(join(out, 'sweep.csv'), 'utf8')).toBe(
      'rank,k,strategy_pnl,strategy_return_pct,buy_and_hold_pnl,max_drawdown_pct,sharpe,sortino,fills,trades,win_rate_pct,profit_factor,fees,dir,fault\n' +
        '1,3,3,0,5,1,0.5,0.7,3,1,100,inf,0.1,run-003,\n' +
        '2,1,1,0,5,1,0.5,0.7,3,1,100,inf,0.1,run-001,\n' +
        '3,2,2,0,5,1,0.5,0.7,3,1,100,inf,0.1,run-002,"said ""no"""\n',
    );
  });
});
