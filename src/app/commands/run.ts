// `sextant run`: checks the config as `config check` does, starts the daemon, stops it on SIGTERM/SIGINT and
// reloads strategy params on SIGHUP.
import type { Command } from 'commander';
import { formatIssue } from '../../config/load.js';
import { HookWatchdog } from '../../strategy/hook-watchdog.js';
import { systemClock } from '../../util/clock.js';
import { createLogger, type Logger } from '../../util/logger.js';
import { loadCheckedConfig } from '../config-check.js';
import { StartAbandonedError, takeAccountLease } from '../standby.js';
import { startDaemon, type Daemon } from '../daemon.js';
import { fetchInstruments } from '../instrument-list.js';
import { waitForStop } from '../signals.js';
import { DEFAULT_CONFIG, type Io, type SetCode } from './io.js';
import { loadForCommand } from './load-for-command.js';

/** SIGHUP: re-reads the config; strategy params are applied when everything validates, the old ones kept otherwise. */
export async function reloadConfig(file: string, daemon: Pick<Daemon, 'reload'>, logger: Pick<Logger, 'warn'>): Promise<void> {
  let problems: string[];
  try {
    // Symbols cannot change without a restart: the list known offline is enough.
    const next = await loadCheckedConfig(file);
    problems = next.ok ? daemon.reload(next.check.loaded) : next.issues.map(formatIssue);
  } catch (err) {
    problems = [(err as Error).message];
  }
  if (problems.length) logger.warn({ problems }, 'config reload refused: the running config stays');
}

async function runDaemon(opts: { config: string }, io: Io): Promise<number> {
  // Everything the start would refuse, reported before anything starts; symbols against the venue's list read now
  // (the logger is made once the config has loaded: it logs at the configured level).
  let made: Logger | undefined;
  const check = await loadForCommand(opts.config, io, {
    instrumentsFor: (loaded) => fetchInstruments(loaded, (made = createLogger({ level: loaded.config.log.level })).child({ component: 'config' }), systemClock),
  });
  if (!check || !made) return 1;
  const logger = made;
  for (const note of check.notes) logger.child({ component: 'config' }).info(note);
  let daemon: Daemon | undefined;
  // Strategy hooks run under the process's one watchdog (no thread per call), which takes SIGINT over and hands it on.
  if (check.loaded.config.strategies.length > 0) HookWatchdog.enable();
  // Listened for from the start: a standby waiting for the account lease stops on them too.
  const signal = waitForStop({ onHangup: () => daemon && void reloadConfig(opts.config, daemon, logger) });
  try {
    const lease = await takeAccountLease(check.loaded, logger, systemClock, signal);
    if (check.loaded.config.daemon.lease && !lease) return 0;
    daemon = await startDaemon(check.loaded, logger, systemClock, lease ? { lease, stop: signal.then((s) => `stopped (${s})`) } : {});
    // The start line: on a person's terminal, the link that opens the dashboard signed in (once, as the command's
    // output; stderr, where errors go, scrubs secrets: the token is one). Anywhere else the output is a log (docker,
    // systemd, a file): the link is left out, `sextant dashboard` prints it.
    if (daemon.signInUrl && io.terminal?.()) io.out(`Sextant is running. Dashboard (signed in): ${daemon.signInUrl}`);
    else io.out(`Sextant is running. Dashboard: ${daemon.opsUrl}/ (\`sextant dashboard\` prints the link that signs it in)`);
  } catch (err) {
    // Given up before trading: a stop asked for ends as a stop does; a lease lost meanwhile as a lost lease (3).
    if (err instanceof StartAbandonedError) {
      logger.child({ component: 'daemon' }).warn({ reason: err.reason }, 'start given up');
      return err.stopped ? 0 : 3;
    }
    io.err(`cannot start: ${(err as Error).message}`);
    return 1;
  }
  const running = daemon;
  const ended = await Promise.race([
    signal.then((s) => ({ signal: s })),
    ...(running.leaseLost ? [running.leaseLost.then((reason) => ({ lost: reason }))] : []),
  ]);
  try {
    // A lost lease: the orders are the next holder's, none is canceled; exit code 3 says why the daemon stopped
    // (whether or not its writes in flight drained: the new holder reconciles them).
    if ('lost' in ended) {
      await running.stop(`account lease lost: ${ended.lost}`, { cancelOpenOrders: false });
      return 3;
    }
    return await running.stop(ended.signal);
  } catch (err) {
    io.err(`stop failed: ${(err as Error).message}`);
    return 1;
  }
}

export function registerRun(program: Command, io: Io, setCode: SetCode): void {
  program
    .command('run')
    .description('run the daemon: market data, strategies, risk gate, executor (SIGTERM stops it cleanly)')
    .option('-c, --config <file>', 'config file', DEFAULT_CONFIG)
    .action(async (opts: { config: string }) => setCode(await runDaemon(opts, io)));
}
