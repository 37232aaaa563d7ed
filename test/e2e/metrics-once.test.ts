// One set of numbers: a run's figures (win rate, profit factor, drawdown, exposure, Sharpe, Sortino, fills, fees,
// PnL) each have one definition (src/report/metrics.ts), so report.json, report.html, the summary lines and a sweep
// of the same run show each once, with one value: money to the cent where a person reads it, every digit in JSON and
// CSV. Run as a user runs them: `sextant backtest` of the ema-cross example and a sweep of its own params.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { metricText, moneyText } from '../../src/report/html-tables.js';
import type { Metrics } from '../../src/report/metrics.js';
import { runCli } from '../fixtures/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-metrics-once-'));
const CONFIG = 'config/examples/ema-cross.yaml';

async function sextant(args: string[]): Promise<{ code: number | null; out: string }> {
  const r = await runCli(args, { PATH: process.env.PATH });
  return { code: r.code, out: `${r.stdout}${r.stderr}` };
}

interface Report {
  metrics: Metrics;
  strategies: Array<{ id: string; trades: { trades: number; winRatePct: string; profitFactor: string } }>;
}

let single: { out: string; report: Report; html: string };
let sweep: { out: string; header: string[]; row: string[]; report: Report };

beforeAll(async () => {
  const spec = join(dir, 'sweep.yaml');
  // The example's own params: the sweep's one run is the plain backtest.
  writeFileSync(spec, 'strategy: ema-eth\nparams:\n  fast: [9]\n');
  const [a, s] = await Promise.all([
    sextant(['backtest', '--config', CONFIG, '--out', join(dir, 'single')]),
    sextant(['backtest', '--config', CONFIG, '--sweep', spec, '--out', join(dir, 'sweep')]),
  ]);
  expect([a.code, s.code]).toEqual([0, 0]);
  single = {
    out: a.out,
    report: JSON.parse(readFileSync(join(dir, 'single', 'report.json'), 'utf8')) as Report,
    html: readFileSync(join(dir, 'single', 'report.html'), 'utf8'),
  };
  const [header, row] = readFileSync(join(dir, 'sweep', 'sweep.csv'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.split(','));
  sweep = { out: s.out, header: header!, row: row!, report: JSON.parse(readFileSync(join(dir, 'sweep', 'run-001', 'report.json'), 'utf8')) as Report };
}, 120_000);

describe('one set of numbers', () => {
  it('the run trades and closes round trips (the figures below are not all zero)', () => {
    expect(single.report.metrics.fills).toBeGreaterThan(0);
    expect(single.report.metrics.trades).toBeGreaterThan(0);
  });

  it('report.html shows every metric of report.json once, with its value (money to the cent)', () => {
    const m = single.report.metrics;
    for (const k of Object.keys(m) as Array<keyof Metrics>) {
      const rows = [...single.html.matchAll(new RegExp(`<tr data-key="${k}"><th>[^<]*</th><td>([^<]*)</td></tr>`, 'g'))].map((x) => x[1]);
      expect({ k, rows }).toEqual({ k, rows: [metricText(m, k)] });
    }
    expect(metricText(m, 'strategyPnl')).toBe(moneyText(m.strategyPnl));
    expect(metricText(m, 'strategyPnl')).toMatch(/^-?\d+\.\d{2}$/);
  });

  it("the strategy's own line (the only strategy) has the run's trades, win rate and profit factor", () => {
    const m = single.report.metrics;
    const [only] = single.report.strategies;
    expect(single.report.strategies).toHaveLength(1);
    expect(only!.trades).toMatchObject({ trades: m.trades, winRatePct: m.winRatePct, profitFactor: m.profitFactor });
  });

  it('the summary line names each figure with the value report.json holds', () => {
    const m = single.report.metrics;
    const line = single.out.split('\n').find((l) => l.startsWith('strategy PnL '))!;
    expect(line).toContain(`strategy PnL ${moneyText(m.strategyPnl)} (${m.strategyReturnPct} %)`);
    expect(line).toContain(`vs buy-and-hold ${moneyText(m.buyAndHoldPnl)} (${m.buyAndHoldReturnPct} %)`);
    expect(line).toContain(`max drawdown ${m.maxDrawdownPct} %`);
    expect(line).toContain(`Sharpe ${m.sharpe} (${m.ratioBasis})`);
    expect(line).toContain(`fills ${m.fills}, round trips ${m.trades} (win rate ${m.winRatePct} %, profit factor ${m.profitFactor})`);
    expect(line).toContain(`fees ${moneyText(m.feesPaid)}`);
    // Each figure once.
    for (const word of ['strategy PnL', 'max drawdown', 'Sharpe', 'win rate', 'profit factor', 'fees']) expect(line.split(word).length - 1).toBe(1);
  });

  it('the sweep of the same params: its run, its sweep.csv row and its line hold the same figures', () => {
    const m = single.report.metrics;
    expect(sweep.report.metrics).toEqual(m);
    const col = (name: string) => sweep.row[sweep.header.indexOf(name)];
    expect({
      strategy_pnl: col('strategy_pnl'),
      strategy_return_pct: col('strategy_return_pct'),
      buy_and_hold_pnl: col('buy_and_hold_pnl'),
      max_drawdown_pct: col('max_drawdown_pct'),
      sharpe: col('sharpe'),
      sortino: col('sortino'),
      fills: col('fills'),
      trades: col('trades'),
      win_rate_pct: col('win_rate_pct'),
      profit_factor: col('profit_factor'),
      fees: col('fees'),
    }).toEqual({
      strategy_pnl: m.strategyPnl,
      strategy_return_pct: m.strategyReturnPct,
      buy_and_hold_pnl: m.buyAndHoldPnl,
      max_drawdown_pct: m.maxDrawdownPct,
      sharpe: String(m.sharpe),
      sortino: String(m.sortino),
      fills: String(m.fills),
      trades: String(m.trades),
      win_rate_pct: m.winRatePct,
      profit_factor: m.profitFactor,
      fees: m.feesPaid,
    });
    expect(sweep.out).toContain(`strategy PnL ${moneyText(m.strategyPnl)}  dd ${m.maxDrawdownPct} %  fills ${m.fills}`);
  });
});
