// The optimisation's files: optimize.json (everything: candidates, each fold's rungs and ranking with in-sample
// scores, the chosen params' in- and out-of-sample runs, the stitched out-of-sample equity, the degradation, Monte
// Carlo and the lookahead verdict) and optimize.csv (one line per fold and candidate, best first).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OptimizeResult } from './optimizer.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** JSON text: infinite numbers as "inf" / "-inf", windows with their times in words too. */
export function optimizeJson(result: OptimizeResult): string {
  return (
    JSON.stringify(
      result,
      (_key, value: unknown) => {
        if (typeof value === 'number' && !Number.isFinite(value)) return value > 0 ? 'inf' : value < 0 ? '-inf' : null;
        if (value && typeof value === 'object' && !Array.isArray(value)) {
          const keys = Object.keys(value);
          if (keys.length === 2 && keys.includes('fromMs') && keys.includes('toMs')) {
            const w = value as { fromMs: number; toMs: number };
            return { fromMs: w.fromMs, toMs: w.toMs, from: iso(w.fromMs), to: iso(w.toMs) };
          }
        }
        return value;
      },
      2,
    ) + '\n'
  );
}

const cell = (value: unknown): string => {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

/** One line per fold and candidate (at the last rung it reached), each fold's best first. */
export function optimizeCsv(result: OptimizeResult): string {
  const names = Object.keys(result.spec.params);
  const byId = new Map(result.candidates.map((c) => [c.id, c]));
  const header = [
    'fold',
    'rank',
    'candidate',
    ...names,
    'rung',
    'window_from',
    'window_to',
    'score',
    'qualified',
    'strategy_pnl',
    'sharpe',
    'sortino',
    'max_drawdown_pct',
    'trades',
    'profit_factor',
    'chosen',
    'oos_score',
    'oos_strategy_pnl',
    'fault',
  ];
  const lines = result.folds.flatMap((f) =>
    f.ranking.map((r) => {
      const chosen = r.candidate === f.best.candidate;
      const m = r.metrics;
      return [
        f.index + 1,
        r.rank,
        r.candidate,
        ...names.map((n) => byId.get(r.candidate)!.params[n]),
        r.rung + 1,
        iso(r.window.fromMs),
        iso(r.window.toMs),
        r.score.text,
        r.score.qualified,
        m.strategyPnl,
        m.sharpe,
        m.sortino,
        m.maxDrawdownPct,
        m.trades,
        m.profitFactor,
        chosen,
        chosen ? f.outOfSampleRun.score.text : '',
        chosen ? f.outOfSampleRun.metrics.strategyPnl : '',
        r.score.fault ?? '',
      ]
        .map(cell)
        .join(',');
    }),
  );
  return [header.join(','), ...lines].join('\n') + '\n';
}

export function writeOptimizeFiles(outDir: string, result: OptimizeResult): { json: string; csv: string } {
  const json = join(outDir, 'optimize.json');
  const csv = join(outDir, 'optimize.csv');
  writeFileSync(json, optimizeJson(result));
  writeFileSync(csv, optimizeCsv(result));
  return { json, csv };
}
