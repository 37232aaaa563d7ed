import '../fixtures/backtest-in-jest.js';
import { readFileSync } from 'node:fs';
import { it } from '@jest/globals';
const { loadConfig } = await import('../../src/config/load.js');
const { runBacktest, backtestSummary } = await import('../../src/app/backtest.js');
const { silentLogger } = await import('../../src/util/logger.js');
const names = (process.env.EX ?? 'rsi-reversion,ema-cross,bollinger-maker').split(',');
it('scratch', async () => {
  for (const name of names) {
    const cfg = process.env.CFG ?? `config/examples/${name}.yaml`;
    const outDir = `/tmp/ex/out-${name}`;
    try {
      const r = await runBacktest(loadConfig(cfg, {}), silentLogger, { outDir });
      console.log(name, backtestSummary(r).join('\n'), JSON.stringify(r.orders), JSON.stringify(r.timings));
    } catch (e) { console.log(name, 'FAILED', String(e)); }
    const rep = JSON.parse(readFileSync(`${outDir}/report.json`, 'utf8'));
    console.log(JSON.stringify(rep.strategies));
  }
}, 120000);
