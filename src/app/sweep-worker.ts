// One backtest of a sweep, in a worker thread: the config with one instance's params replaced.
import { parentPort, workerData } from 'node:worker_threads';
import { loadConfig } from '../config/load.js';
import { silentLogger } from '../util/logger.js';
import { BacktestFaultError, runBacktest } from './backtest.js';
import { checkConfig } from './config-check.js';
import { simulatorInstruments } from './instrument-list.js';

const { configFile, strategy, params, outDir, range } = workerData as {
  configFile: string;
  strategy: string;
  params: Record<string, unknown>;
  outDir: string;
  range: { dataFile?: string; fromMs?: number; toMs?: number };
};
try {
  // As the command checked it: strategy params with unquoted decimals read as written.
  const raw = loadConfig(configFile, {});
  const { loaded, issues } = await checkConfig(raw, { instruments: simulatorInstruments(raw.config) });
  if (issues.length) throw new Error(issues.map((i) => `${i.path}: ${i.message}`).join('; '));
  const s = loaded.config.strategies.find((x) => x.id === strategy);
  if (!s) throw new Error(`no strategy instance ${strategy} in ${configFile}`);
  s.params = { ...s.params, ...params };
  const r = await runBacktest(loaded, silentLogger, { ...range, outDir });
  parentPort!.postMessage({ metrics: r.metrics });
} catch (err) {
  // A combination whose strategy faulted is a result (ranked last, its fault named), not the sweep's end.
  if (err instanceof BacktestFaultError) parentPort!.postMessage({ metrics: err.result.metrics, fault: err.message });
  else
  parentPort!.postMessage({ error: (err as Error).message });
}
