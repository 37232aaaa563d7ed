// The shipped backtests (config/backtest.yaml and config/examples/*.yaml) write the same files, byte for byte, as the
// code recorded in the snapshot did: a change meant to be invisible (a restructuring) is shown to be so. Each file's
// SHA-256 is held in __snapshots__/backtest-golden.test.ts.snap; a change of output that is meant (a new column, a
// fixed figure) is accepted with `npm test -- -u test/e2e/backtest-golden.test.ts`, and the diff of the snapshot
// shows which files it moved. The figures agree on Node 20 and Node 24. Each strategy's README states what its shipped
// backtest shows, with the run's own figures: a change that moves them moves the README too.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { moneyText } from '../../src/report/html-tables.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-golden-'));
const CONFIGS = ['config/backtest.yaml', ...readdirSync('config/examples').map((f) => `config/examples/${f}`)].sort();

function backtest(config: string, out: string): Promise<{ code: number | null; said: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['bin/sextant.js', 'backtest', '--config', config, '--out', out], { env: { PATH: process.env.PATH } });
    let said = '';
    p.stdout.on('data', (x) => (said += String(x)));
    p.stderr.on('data', (x) => (said += String(x)));
    p.on('close', (code) => resolve({ code, said }));
  });
}

interface StrategyReport {
  id: string;
  name: string;
  pnl: { pnl: string; fees: string; fills: number };
  trades: { trades: number };
}

/** The line a strategy's README gives a shipped backtest: the config, the instance, and the run's figures. */
function readmeLine(config: string, s: StrategyReport): string {
  return `\`${config}\` (${s.id}): strategy PnL ${moneyText(s.pnl.pnl)}, fees ${moneyText(s.pnl.fees)}, ${s.pnl.fills} fills, ${s.trades.trades} round trips.`;
}

/** Every file the run left in `out` (none hidden: the spilled parts are merged and gone), with its SHA-256. */
function digests(out: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(out)
      .sort()
      .map((f) => [
        f,
        createHash('sha256')
          .update(readFileSync(join(out, f)))
          .digest('hex'),
      ]),
  );
}

describe('the shipped backtests, byte for byte', () => {
  it('writes the files the snapshot holds', async () => {
    const runs: Record<string, { code: number | null; files: Record<string, string> }> = {};
    const readmes: Array<{ readme: string; line: string }> = [];
    // Two at a time (the machine's cores).
    for (let i = 0; i < CONFIGS.length; i += 2) {
      await Promise.all(
        CONFIGS.slice(i, i + 2).map(async (config) => {
          const out = join(dir, config.replace(/[/.]/g, '_'));
          const r = await backtest(config, out);
          if (r.code !== 0) throw new Error(`${config}: exit ${r.code}\n${r.said}`);
          runs[config] = { code: r.code, files: digests(out) };
          const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as { strategies: StrategyReport[] };
          for (const s of report.strategies) readmes.push({ readme: `examples/strategies/${s.name}/README.md`, line: readmeLine(config, s) });
        }),
      );
    }
    expect(Object.keys(runs).sort()).toEqual(CONFIGS);
    expect(Object.fromEntries(CONFIGS.map((c) => [c, runs[c]!.files]))).toMatchSnapshot();
    // Every shipped backtest's strategies, each stated in its README (whitespace folded: the text wraps).
    expect(readmes.length).toBeGreaterThanOrEqual(CONFIGS.length);
    const missing = readmes.filter((r) => !readFileSync(r.readme, 'utf8').replace(/\s+/g, ' ').includes(r.line));
    expect(missing).toEqual([]);
  }, 120_000);
});
