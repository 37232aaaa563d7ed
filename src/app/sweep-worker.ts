// One backtest of a sweep, in a worker thread: the config with one instance's params replaced.
import { parentPort, workerData } from 'node:worker_threads';
import { silentLogger } from '../util/logger.js';
import { BacktestFaultError, runBacktest } from './backtest.js';
import { loadCheckedConfig } from './config-check.js';
import { simulatorInstruments } from './instrument-list.js';

const { configFile, strategy, params, outDir, range } = workerData as {
  configFile: string;
  strategy: string;
  params: Record<string, unknown>;
  outDir: string;
  range: { dataFile?: string; fromMs?: number; toMs?: number };
};
try {
  // As the command checked it: strategy params with unquoted decimals read as written. No environment: a run
  // depends on its files alone.
  const checked = await loadCheckedConfig(configFile, { env: {}, instrumentsFor: (raw) => simulatorInstruments(raw.config) });
  if (!checked.ok) throw new Error(checked.issues.map((issue) => `${issue.path}: ${issue.message}`).join('; '));
  const { loaded } = checked.check;
  const instance = loaded.config.strategies.find((s) => s.id === strategy);
  if (!instance) throw new Error(`no strategy instance ${strategy} in ${configFile}`);
  instance.params = { ...instance.params, ...params };
  const result = await runBacktest(loaded, silentLogger, { ...range, outDir });
  parentPort!.postMessage({ metrics: result.metrics });
} catch (err) {
  // A combination whose strategy faulted is a result (ranked last, its fault named), not the sweep's end.
  if (err instanceof BacktestFaultError) parentPort!.postMessage({ metrics: err.result.metrics, fault: err.message });
  else parentPort!.postMessage({ error: (err as Error).message });
}
