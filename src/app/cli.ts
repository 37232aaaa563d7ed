// The `sextant` command line (commander): builds the program and registers the commands of src/app/commands/.
import { existsSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { VERSION } from '../util/package.js';
import { registerApi } from './commands/api.js';
import { registerBacktest } from './commands/backtest.js';
import { registerConfig } from './commands/config.js';
import { registerDaemonCommands } from './commands/daemon-commands.js';
import { registerDaemonOrders, registerDaemonReads } from './commands/daemon-reads.js';
import { registerData } from './commands/data.js';
import { registerHealth } from './commands/health.js';
import { DEFAULT_CONFIG, USER_FOLDER_CONFIG, stdio, type Io, type SetCode } from './commands/io.js';
import { registerJournal } from './commands/journal.js';
import { registerOptimize } from './commands/optimize.js';
import { registerOrders } from './commands/orders.js';
import { registerPlan } from './commands/plan.js';
import { registerRecord } from './commands/record.js';
import { registerRisk } from './commands/risk.js';
import { registerRun } from './commands/run.js';
import { registerSim } from './commands/sim.js';
import { registerStrategyTools } from './commands/strategy-tools.js';
import { registerSymbols } from './commands/symbols.js';
import { registerUserdir } from './commands/userdir.js';
import { registerWorker } from './commands/worker.js';

export type { Io } from './commands/io.js';

/** The commands in the order `sextant --help` lists them. */
const COMMANDS: ReadonlyArray<(program: Command, io: Io, setCode: SetCode) => void> = [
  registerUserdir,
  registerStrategyTools,
  registerSymbols,
  registerRun,
  registerDaemonReads,
  registerHealth,
  registerDaemonCommands,
  registerPlan,
  registerConfig,
  registerApi,
  registerRisk,
  registerOrders,
  registerDaemonOrders,
  registerJournal,
  registerBacktest,
  registerOptimize,
  registerWorker,
  registerData,
  registerRecord,
  registerSim,
];

export function buildProgram(io: Io, setCode: SetCode): Command {
  const program = new Command();
  program
    .name('sextant')
    .description('Trading daemon for the spot (/api/v2) and futures (/capi/v2) REST interface')
    .version(VERSION, '-V, --version', 'the version of sextant')
    .option(
      '--userdir <dir>',
      'the user folder: configs, strategies, data and reports are found from it (default: the current folder; the same as running the command there)',
    )
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err });
  // The user folder is the working folder of the command: every relative path (a --config, a config's defaults) starts there.
  program.hook('preAction', (_program, command) => {
    const dir = program.opts<{ userdir?: string }>().userdir;
    if (dir !== undefined) {
      try {
        process.chdir(dir);
      } catch (err) {
        throw new Error(`--userdir ${dir}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such folder' : (err as Error).message}`);
      }
    }
    // No --config, and no config/default.yaml here: a user folder's daemon config (what `sextant init` writes).
    if (
      command.getOptionValueSource('config') === 'default' &&
      command.getOptionValue('config') === DEFAULT_CONFIG &&
      !existsSync(DEFAULT_CONFIG) &&
      existsSync(USER_FOLDER_CONFIG)
    )
      command.setOptionValueWithSource('config', USER_FOLDER_CONFIG, 'default');
  });
  for (const register of COMMANDS) register(program, io, setCode);
  return program;
}

/** Runs the CLI; resolves to the exit code (an unexpected error is reported on stderr, secrets scrubbed: exit 1). */
export async function main(argv: string[], io: Io = stdio): Promise<number> {
  let code = 0;
  const program = buildProgram(io, (exitCode) => {
    code = exitCode;
  });
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    io.err(`sextant: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
  return code;
}
