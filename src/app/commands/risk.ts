// `sextant risk status|reset|reduce|kill`: the kill switch, trading state and fence kept in the journal.
import type { Command } from 'commander';
import { describePending, unansweredOrders } from '../../execution/order-tracker.js';
import { RiskGate } from '../../execution/risk.js';
import type { Journal } from '../../journal/journal.js';
import { systemClock } from '../../util/clock.js';
import { riskLimits } from '../kernel.js';
import { DEFAULT_CONFIG, type Io, type SetCode } from './io.js';
import { withJournal } from './with-journal.js';

/** Runs `act` on the risk gate of the configured journal (see withJournal); a latch set here is stamped with the time. */
function withGate(file: string, io: Io, act: (gate: RiskGate, journal: Journal) => string): Promise<number> {
  return withJournal(file, io, (journal, loaded) => act(new RiskGate(riskLimits(loaded), journal, systemClock), journal));
}

/** The first line of `risk status`: the trading state in force and why. */
function stateLine(gate: RiskGate): string {
  const state = gate.state();
  switch (state) {
    case 'halted':
      return `halted: ${gate.latchReason() ?? ''}`;
    case 'reducing':
      return `reducing: ${gate.reduceReason() ?? ''}`;
    case 'active':
      return 'active: no kill switch latched';
  }
}

function status(gate: RiskGate, journal: Journal): string {
  const pending = unansweredOrders(journal, systemClock.now());
  const fence = pending.length
    ? `fence: ${describePending(pending)}; they are looked up at every reconciliation, or settle one with \`sextant orders resolve\``
    : 'fence: no order with an unknown outcome (a starting daemon also waits for its first reconciliation and, live, a signed request)';
  return `${stateLine(gate)}\n${fence}`;
}

/** Clears the kill switches and reduce orders: one line per state cleared, the kill switch first. */
function reset(gate: RiskGate): string {
  const was = [gate.latchReason(), gate.reduceReason()].filter((reason) => reason !== undefined);
  gate.reset();
  return was.length ? was.map((reason) => `cleared: ${reason}`).join('\n') : 'nothing was latched';
}

function reduce(gate: RiskGate, reason: string): string {
  gate.reduce(reason);
  return `reducing: ${reason.trim()}`;
}

function kill(gate: RiskGate, reason: string): string {
  gate.kill(reason);
  return `halted: ${reason.trim()} (a running daemon takes it in and does what risk.onKill says: cancel, or flatten)`;
}

export function registerRisk(program: Command, io: Io, setCode: SetCode): void {
  const risk = program.command('risk').description('the kill switch, trading state and fence kept in the journal');
  risk
    .command('status')
    .description('show whether a kill switch is latched, and which orders hold new ones back')
    .option('-c, --config <file>', 'config file', DEFAULT_CONFIG)
    .action(async (opts: { config: string }) => setCode(await withGate(opts.config, io, status)));
  risk
    .command('reset')
    .description(
      'operator action: clear a latched kill switch (drawdown, order rate, `risk kill`) and reducing (drawdown, liquidation distance, `risk reduce`); a running daemon takes it in',
    )
    .option('-c, --config <file>', 'config file', DEFAULT_CONFIG)
    .action(async (opts: { config: string }) => setCode(await withGate(opts.config, io, reset)));
  risk
    .command('reduce')
    .description('operator action: only orders that reduce exposure from now on, kept in the journal until `risk reset`; a running daemon takes it in')
    .requiredOption('--reason <text>', 'why: kept with the state')
    .option('-c, --config <file>', 'config file', DEFAULT_CONFIG)
    .action(async (opts: { config: string; reason: string }) => setCode(await withGate(opts.config, io, (gate) => reduce(gate, opts.reason))));
  risk
    .command('kill')
    .description('operator action: latch the kill switch (halted until `risk reset`); a running daemon takes it in and cancels or flattens as risk.onKill says')
    .requiredOption('--reason <text>', 'why: kept with the state')
    .option('-c, --config <file>', 'config file', DEFAULT_CONFIG)
    .action(async (opts: { config: string; reason: string }) => setCode(await withGate(opts.config, io, (gate) => kill(gate, opts.reason))));
}
