// The `sextant` command line (commander): builds the program and registers the commands of src/app/commands/.
import { Command, CommanderError } from 'commander';
import { registerApi } from './commands/api.js';
import { registerBacktest } from './commands/backtest.js';
import { registerConfig } from './commands/config.js';
import { registerDaemonCommands } from './commands/daemon-commands.js';
import { registerDaemonOrders, registerDaemonReads } from './commands/daemon-reads.js';
import { registerData } from './commands/data.js';
import { stdio, type Io, type SetCode } from './commands/io.js';
import { registerOptimize } from './commands/optimize.js';
import { registerOrders } from './commands/orders.js';
import { registerPlan } from './commands/plan.js';
import { registerRecord } from './commands/record.js';
import { registerRisk } from './commands/risk.js';
import { registerRun } from './commands/run.js';
import { registerSim } from './commands/sim.js';
import { registerWorker } from './commands/worker.js';

export type { Io } from './commands/io.js';

/** The commands in the order `sextant --help` lists them. */
const COMMANDS: ReadonlyArray<(program: Command, io: Io, setCode: SetCode) => void> = [
  registerRun,
  registerDaemonReads,
  registerDaemonCommands,
  registerPlan,
  registerConfig,
  registerApi,
  registerRisk,
  registerOrders,
  registerDaemonOrders,
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
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err });
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
