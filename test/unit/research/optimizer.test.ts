// The optimiser on a runner in memory: batches per rung across folds, successive halving keeping the best 1/eta
// (too few trades ranked last), the chosen params run in and out of sample, the out-of-sample equity stitched, the
// trades resampled, and the lookahead check's jobs and verdict.
import { describe, expect, it } from '@jest/globals';
import type { OptimizeSpec } from '../../../src/config/optimize-spec.js';
import type { BacktestJob, Decision, JobCollect } from '../../../src/research/jobs.js';
import { optimize, type OptimizePlan } from '../../../src/research/optimizer.js';
import { optimizeCsv, optimizeJson } from '../../../src/research/optimize-files.js';
import { FakeRunner, metrics } from '../../fixtures/research-runs.js';

const S = 1000;
const span = { fromMs: 0, toMs: 1800 * S };

function spec(over: Partial<OptimizeSpec> = {}): OptimizeSpec {
  return {
    strategy: 'st',
    params: { x: [1, 2, 3, 4, 5, 6, 7, 8, 9] },
    search: { method: 'grid', seed: 1 },
    halving: { enabled: true, eta: 3, minBudget: { share: 1 / 9 } },
    objective: { metric: 'strategyPnl', minTrades: 3 },
    walkForward: { mode: 'rolling', inSampleMs: 900 * S, outOfSampleMs: 450 * S },
    monteCarlo: { runs: 50, seed: 1, percentiles: [5, 50, 95] },
    lookahead: { enabled: false, cuts: 2 },
    heatmap: ['x'],
    ...over,
  };
}

function plan(s: OptimizeSpec, extra: Partial<OptimizePlan> = {}): OptimizePlan {
  return {
    spec: s,
    span,
    dataFile: 'data.jsonl',
    dataFiles: ['data.jsonl'],
    baseParams: { x: 0, file: 'data.jsonl' },
    marginMs: 2 * S,
    job: (id: string, params: Record<string, unknown>, range: BacktestJob['range'], collect?: JobCollect) => ({
      id,
      configFile: 'c.yaml',
      strategy: s.strategy,
      params,
      range,
      ...(collect ? { collect } : {}),
    }),
    ...extra,
  };
}

const lengthOf = (job: BacktestJob) => job.range.toMs! + 1 - job.range.fromMs!;

/**
 * Short windows favour a large x, the whole in-sample window a small one; x = 8 trades too little. Out of sample
 * every run earns x and closes two trades; equity rises by x over the window.
 */
const answer = (job: BacktestJob) => {
  const x = job.params.x as number;
  const oos = job.id.endsWith('out-of-sample');
  const full = lengthOf(job) >= 900 * S;
  const pnl = oos ? x : full ? -x : job.id.includes('-r2-') ? -x : x;
  return {
    metrics: metrics({ strategyPnl: String(pnl), startEquity: '1000', trades: x === 8 ? 0 : 10 }),
    ...(job.collect?.equity
      ? {
          equity: [
            [job.range.fromMs!, '1000'],
            [job.range.toMs!, String(1000 + pnl)],
          ] as Array<[number, string]>,
        }
      : {}),
    ...(job.collect?.trades ? { tradePnls: [String(pnl / 2), String(pnl / 2)] } : {}),
  };
};

describe('the optimiser', () => {
  it('halving: every rung a batch for all folds; the best 1/eta go on, too few trades last; one left goes to the whole window', async () => {
    const runner = new FakeRunner(answer);
    const r = await optimize(runner, plan(spec()));
    expect(r.folds.map((f) => [f.inSample, f.outOfSample])).toEqual([
      [
        { fromMs: 0, toMs: 900 * S },
        { fromMs: 900 * S, toMs: 1350 * S },
      ],
      [
        { fromMs: 450 * S, toMs: 1350 * S },
        { fromMs: 1350 * S, toMs: 1800 * S },
      ],
    ]);
    // Rung 1: 9 candidates × 2 folds on the first 100 s; rung 2: 3 × 2 on 300 s; rung 3: 1 × 2 on all 900 s; then the chosen in and out of sample.
    expect(runner.batches.map((b) => b.length)).toEqual([18, 6, 2, 4]);
    expect(runner.batches[0]!.slice(0, 2).map((j) => [j.id, j.range])).toEqual([
      ['f1-r1-c001', { dataFile: 'data.jsonl', fromMs: 0, toMs: 100 * S - 1 }],
      ['f1-r1-c002', { dataFile: 'data.jsonl', fromMs: 0, toMs: 100 * S - 1 }],
    ]);
    expect(runner.batches[1]!.map((j) => j.range.toMs! + 1 - j.range.fromMs!)).toEqual(Array(6).fill(300 * S));
    const f = r.folds[0]!;
    // Rung 1 ranks by x (9, 7, 6: x = 8 has too few trades); rung 2 by -x among them: 6; alone, it runs on the whole window.
    expect(f.rungs.map((g) => [g.candidates, g.kept])).toEqual([
      [
        ['c001', 'c002', 'c003', 'c004', 'c005', 'c006', 'c007', 'c008', 'c009'],
        ['c009', 'c007', 'c006'],
      ],
      [['c006', 'c007', 'c009'], ['c006']],
      [['c006'], ['c006']],
    ]);
    expect(runner.batches[2]!.map((j) => j.id)).toEqual(['f1-r3-c006', 'f2-r3-c006']);
    expect(f.best).toEqual({ candidate: 'c006', params: { x: 6 } });
    // The ranking: the last rung's first, then rung 2's, then rung 1's; x = 8 last of its rung.
    expect(f.ranking.map((c) => [c.candidate, c.rung])).toEqual([
      ['c006', 2],
      ['c007', 1],
      ['c009', 1],
      ['c005', 0],
      ['c004', 0],
      ['c003', 0],
      ['c002', 0],
      ['c001', 0],
      ['c008', 0],
    ]);
    expect(f.ranking.find((c) => c.candidate === 'c008')!.score.qualified).toBe(false);
    // The heatmap holds the first rung, where every candidate ran.
    expect(f.heatmap.rows[0]!.map((c) => c?.score.text)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9']);
  });

  it('the chosen params in and out of sample, the degradation, the stitched equity and the resampled trades', async () => {
    const runner = new FakeRunner(answer);
    const r = await optimize(runner, plan(spec()));
    const last = runner.batches[3]!;
    expect(last.map((j) => [j.id, j.params, j.collect])).toEqual([
      ['f1-in-sample', { x: 6 }, { equity: true, trades: true }],
      ['f1-out-of-sample', { x: 6 }, { equity: true, trades: true }],
      ['f2-in-sample', { x: 6 }, { equity: true, trades: true }],
      ['f2-out-of-sample', { x: 6 }, { equity: true, trades: true }],
    ]);
    const f = r.folds[0]!;
    expect([f.inSampleRun.score.text, f.outOfSampleRun.score.text]).toEqual(['-6', '6']);
    // Per day: -6 over 900 s in, 6 over 450 s out: no ratio (in sample not above 0).
    expect(f.efficiency).toBeNull();
    expect(r.outOfSample.strategyPnl).toBe('12');
    // Fold 2 continues from where fold 1 ended: 1006, then its own +6.
    expect(r.outOfSample.equity).toEqual([
      [900 * S, '1000'],
      [1350 * S - 1, '1006'],
      [1350 * S, '1006'],
      [1800 * S - 1, '1012'],
    ]);
    expect(r.outOfSample.trades).toBe(4);
    expect(r.monteCarlo!.trades).toBe(4);
    expect(r.monteCarlo!.actual.finalPnl).toBe('12');
    expect(r.jobs).toBe(30);
    // The files: every candidate of every fold in the CSV; infinite scores never break the JSON.
    const csv = optimizeCsv(r).trim().split('\n');
    expect(csv[0]).toBe(
      'fold,rank,candidate,x,rung,window_from,window_to,score,qualified,strategy_pnl,sharpe,sortino,max_drawdown_pct,trades,profit_factor,chosen,oos_score,oos_strategy_pnl,fault',
    );
    expect(csv).toHaveLength(1 + 18);
    expect(csv[1]).toMatch(/^1,1,c006,6,3,1970-01-01T00:00:00.000Z,1970-01-01T00:15:00.000Z,-6,true,-6,.*,true,6,6,$/);
    const json = JSON.parse(optimizeJson(r)) as { folds: Array<{ inSample: { from: string } }> };
    expect(json.folds[1]!.inSample.from).toBe('1970-01-01T00:07:30.000Z');
  });

  it('without halving, every candidate runs on the whole in-sample window once', async () => {
    const runner = new FakeRunner(answer);
    const r = await optimize(runner, plan(spec({ halving: { enabled: false, eta: 3, minBudget: { share: 0.25 } } })));
    expect(runner.batches.map((b) => b.length)).toEqual([18, 4]);
    // On the whole window -x ranks x = 1 first.
    expect(r.folds.map((f) => f.best.candidate)).toEqual(['c001', 'c001']);
  });

  describe('the lookahead check', () => {
    const decisionsUpTo = (toMs: number, peek: boolean): Decision[] => {
      const out: Decision[] = [];
      for (let ts = 10 * S; ts <= toMs; ts += 10 * S) {
        // A peeking strategy sees 30 s ahead: near the end of what it is given, it decides otherwise.
        const blind = peek && ts + 30 * S > toMs;
        out.push({ ts, strategy: 'st', intent: blind ? 'wait' : `buy ${ts}` });
      }
      return out;
    };
    const run = async (peek: boolean) => {
      const cuts: number[] = [];
      const runner = new FakeRunner((job) => ({ ...answer(job), ...(job.collect?.decisions ? { decisions: decisionsUpTo(job.range.toMs!, peek) } : {}) }));
      const r = await optimize(runner, plan(spec({ lookahead: { enabled: true, cuts: 2 } }), { cutData: (ms) => (cuts.push(ms), `cut-${ms}.jsonl`) }));
      return { r, cuts, batch: runner.batches[runner.batches.length - 1]! };
    };

    it("runs the last fold's choice on the whole data and on copies cut at each time, params naming the data file renamed", async () => {
      const { r, cuts, batch } = await run(false);
      expect(cuts).toEqual([600 * S, 1200 * S]);
      expect(batch.map((j) => [j.id, j.params, j.range, j.collect])).toEqual([
        ['lookahead-full', { x: 6, file: 'data.jsonl' }, { dataFile: 'data.jsonl', fromMs: 0, toMs: 1800 * S - 1 }, { decisions: true }],
        ['lookahead-cut-1', { x: 6, file: 'cut-600000.jsonl' }, { dataFile: 'cut-600000.jsonl', fromMs: 0, toMs: 600 * S }, { decisions: true }],
        ['lookahead-cut-2', { x: 6, file: 'cut-1200000.jsonl' }, { dataFile: 'cut-1200000.jsonl', fromMs: 0, toMs: 1200 * S }, { decisions: true }],
      ]);
      expect(r.lookahead).toMatchObject({
        peeks: false,
        marginMs: 2 * S,
        decisions: 179,
        cuts: [
          { cutMs: 600 * S, untilMs: 598 * S, compared: 59 },
          { cutMs: 1200 * S, compared: 119 },
        ],
      });
      expect(r.jobs).toBe(33);
    });

    it('flags a strategy that decides otherwise before the cut, with the first decision that differs', async () => {
      const { r } = await run(true);
      expect(r.lookahead!.peeks).toBe(true);
      expect(r.lookahead!.cuts[0]).toMatchObject({
        compared: 57,
        difference: { index: 57, full: { ts: 580 * S, intent: 'buy 580000' }, cut: { ts: 580 * S, intent: 'wait' } },
      });
    });
  });
});
