// One research job where it runs: refused, naming the file, when a file differs from the submitter's copy or is
// missing; the instance's params replaced; no files without an out folder; what was asked collected; a strategy
// fault is a result, its fault named.
import '../../fixtures/backtest-in-jest.js';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { parseDocument } from 'yaml';
import type { BacktestJob } from '../../../src/research/jobs.js';

const { jobStrategyFiles, runJob } = await import('../../../src/app/job-run.js');
const { JobError } = await import('../../../src/research/jobs.js');

const dir = mkdtempSync(join(tmpdir(), 'sextant-job-run-'));
const SAMPLE = 'data/sample/ticks.jsonl';
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** A config of one strategy instance on the sample, its files going where nothing else writes. */
function config(name: string, strategies: unknown[]): string {
  const doc = parseDocument(readFileSync('config/backtest.yaml', 'utf8'));
  doc.setIn(['backtest', 'data'], resolve(SAMPLE));
  doc.set('strategyDirs', [resolve('test/fixtures/strategies')]);
  doc.set('strategies', strategies);
  doc.setIn(['backtest', 'out'], join(dir, `${name}-default-out`));
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, doc.toString());
  return file;
}

const mm = config('mm', [
  {
    id: 'mm-btc',
    name: 'spot-market-maker',
    symbols: ['BTCUSDT_SPBL'],
    params: { halfSpreadBps: 2, size: '0.002', maxInventory: '0.02', skewBps: 5, toleranceBps: 1 },
  },
]);
const job = (over: Partial<BacktestJob>): BacktestJob => ({
  id: 'run-001',
  configFile: mm,
  strategy: 'mm-btc',
  params: {},
  range: { toMs: Date.parse('2026-01-05T00:01:00Z') },
  ...over,
});

describe('runJob', () => {
  it("refuses a job whose data file differs from the submitter's copy, or is missing, naming the file", async () => {
    const differs = await runJob(job({ dataHashes: { [SAMPLE]: '0'.repeat(64) } })).catch((err: unknown) => err);
    expect(differs).toBeInstanceOf(JobError);
    expect((differs as Error).message).toMatch(
      /^job run-001: data file data\/sample\/ticks\.jsonl differs from the submitter's copy \(sha256 [0-9a-f]{12}… here, 000000000000… submitted\)$/,
    );
    const gone = join(dir, 'gone.jsonl');
    const missing = await runJob(job({ range: { dataFile: gone }, dataHashes: { [gone]: '0'.repeat(64) } })).catch((err: unknown) => err);
    expect((missing as Error).message).toBe(
      `job run-001: data file ${gone} is missing here (working directory ${process.cwd()}): a worker runs in the same file tree as the submitter`,
    );
  });

  it("names the strategy's module file and refuses a job whose copy of it differs", async () => {
    const { loadConfig } = await import('../../../src/config/load.js');
    const files = jobStrategyFiles(loadConfig(mm, {}).config, 'mm-btc');
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^examples\/strategies\/spot-market-maker(\/index)?\.(ts|js|mjs)$/);
    expect(jobStrategyFiles(loadConfig(mm, {}).config, 'nobody')).toEqual([]);
    const differs = await runJob(job({ strategyHashes: { [files[0]!]: '0'.repeat(64) } })).catch((err: unknown) => err);
    expect(differs).toBeInstanceOf(JobError);
    expect((differs as Error).message).toMatch(
      /^job run-001: strategy file examples\/strategies\/spot-market-maker\S* differs from the submitter's copy \(sha256 [0-9a-f]{12}… here, 000000000000… submitted\)$/,
    );
  });

  it('refuses a job whose config file differs, and one naming an instance the config does not have', async () => {
    await expect(runJob(job({ configHash: 'f'.repeat(64) }))).rejects.toThrow(
      new RegExp(`^job run-001: config file ${mm.replace(/[.]/g, '\\.')} differs from the submitter's copy`),
    );
    await expect(runJob(job({ strategy: 'nobody' }))).rejects.toThrow(`job run-001: no strategy instance nobody in ${mm}`);
  });

  it('runs with the params replaced, writes nothing without an out folder, collects what was asked', async () => {
    const checked = { configHash: sha(mm), dataHashes: { [SAMPLE]: sha(SAMPLE) } };
    const [narrow, wide] = await Promise.all([
      runJob(job({ ...checked, params: { halfSpreadBps: 2 }, collect: { trades: true, equity: true } })),
      runJob(job({ ...checked, id: 'run-002', params: { halfSpreadBps: 20 } })),
    ]);
    expect(narrow.id).toBe('run-001');
    expect(narrow.events).toBe(120);
    expect(narrow.metrics.fills).toBeGreaterThan(wide.metrics.fills);
    expect(narrow.tradePnls!.length).toBeGreaterThan(0);
    expect(narrow.equity![0]![0]).toBe(Date.parse('2026-01-05T00:00:01Z'));
    expect(wide.tradePnls).toBeUndefined();
    expect(existsSync(join(dir, 'mm-default-out'))).toBe(false);
    const out = join(dir, 'written');
    await runJob(job({ outDir: out }));
    expect(existsSync(join(out, 'report.json'))).toBe(true);
  });

  it('a strategy that faults gives a result with its fault named, not where its files went', async () => {
    const faulty = config('faulty', [{ id: 'broken', name: 'faulty', symbols: ['cmt_ethusdt'], params: { failFromMs: 0 } }]);
    const result = await runJob(job({ configFile: faulty, strategy: 'broken', params: { failFromMs: Date.parse('2026-01-05T00:00:30Z') } }));
    expect(result.fault).toMatch(/^strategy broken faulted at 2026-01-05T00:00:3\d\.\d{3}Z: 5 errors, the last in onMarket: no price for cmt_ethusdt at \d+$/);
    expect(result.metrics.fills).toBe(0);
  });
});
