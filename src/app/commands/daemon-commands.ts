// `sextant pause | resume | cancel-orders | force-exit | halt | reduce | reset | flatten | reload | clear-auth-halt`: an
// operator's commands to a running daemon through its control API; the daemon journals each with who gave it and why,
// then its outcome.
// (`sextant risk …` works on the journal file instead, with or without a daemon.)
import type { Command } from 'commander';
import type { Io, SetCode } from './io.js';
import { callDaemon, daemonOptions, type DaemonOptions } from './daemon-client.js';
import { shown } from '../../util/shown.js';

const detail = (b: unknown) => shown((b as { detail?: unknown }).detail ?? '');

type WithReason = DaemonOptions & { reason?: string };

/** The trading-state commands: a reason is required and journaled. */
const TRADING: ReadonlyArray<{ name: string; alias?: string; path: string; description: string }> = [
  { name: 'halt', path: '/trading/halt', description: 'latch halted on a running daemon (cancels only) until `reset`; the kill action of risk.onKill follows' },
  { name: 'reduce', path: '/trading/reduce', description: 'latch reducing on a running daemon (only orders that shrink exposure) until `reset`' },
  {
    name: 'reset',
    alias: 'resume-trading',
    path: '/trading/reset',
    description: 'clear every latch on a running daemon (kill switches, reducing): trading resumes',
  },
  {
    name: 'flatten',
    path: '/trading/flatten',
    description: 'halt a running daemon and flatten now: every own order canceled, futures positions closed at market (spot holdings are not sold)',
  },
];

export function registerDaemonCommands(program: Command, io: Io, setCode: SetCode): void {
  daemonOptions(
    program
      .command('pause')
      .description('a running daemon stops giving the strategy updates: no new intents until `resume`')
      .argument('<id>', 'strategy instance id'),
  )
    .option('--cancel-orders', 'also cancel its open orders (stops that protect a position stay)')
    .option('--reason <text>', 'why: journaled with the command')
    .action(async (id: string, opts: WithReason & { cancelOrders?: boolean }) =>
      setCode(
        await callDaemon(
          io,
          opts,
          'POST',
          `/strategies/${encodeURIComponent(id)}/pause`,
          { cancelOrders: !!opts.cancelOrders, ...(opts.reason ? { reason: opts.reason } : {}) },
          detail,
        ),
      ),
    );
  daemonOptions(program.command('resume').description('a paused strategy of a running daemon takes updates again').argument('<id>', 'strategy instance id'))
    .option('--reason <text>', 'why: journaled with the command')
    .action(async (id: string, opts: WithReason) =>
      setCode(await callDaemon(io, opts, 'POST', `/strategies/${encodeURIComponent(id)}/resume`, opts.reason ? { reason: opts.reason } : {}, detail)),
    );
  daemonOptions(
    program
      .command('cancel-orders')
      .description('cancel every open order of one strategy of a running daemon (stops that protect a position stay)')
      .argument('<id>', 'strategy instance id'),
  )
    .option('--reason <text>', 'why: journaled with the command')
    .action(async (id: string, opts: WithReason) =>
      setCode(await callDaemon(io, opts, 'POST', `/strategies/${encodeURIComponent(id)}/cancel-orders`, opts.reason ? { reason: opts.reason } : {}, detail)),
    );
  daemonOptions(
    program
      .command('force-exit')
      .description('a running daemon pauses the strategy, cancels its orders on the symbol and closes what it holds there at market (its own order, journaled)')
      .argument('<id>', 'strategy instance id')
      .argument('<symbol>', 'symbol'),
  )
    .option('--reason <text>', 'why: journaled with the command')
    .action(async (id: string, symbol: string, opts: WithReason) =>
      setCode(
        await callDaemon(
          io,
          opts,
          'POST',
          `/strategies/${encodeURIComponent(id)}/force-exit`,
          { symbol, ...(opts.reason ? { reason: opts.reason } : {}) },
          detail,
        ),
      ),
    );
  daemonOptions(
    program.command('reload').description("a running daemon reads its config file again and applies the strategies' params (all or nothing, as on SIGHUP)"),
  )
    .option('--reason <text>', 'why: journaled with the command')
    .action(async (opts: WithReason) => setCode(await callDaemon(io, opts, 'POST', '/reload', opts.reason ? { reason: opts.reason } : {}, detail)));
  daemonOptions(
    program
      .command('clear-auth-halt')
      .description(
        'once the keys are fixed, a running daemon whose signed requests stopped after the venue refused its keys sends them again: a signed read probes the keys before trading resumes (exit 1 while it fails)',
      ),
  )
    .option('--reason <text>', 'why: journaled with the command')
    .action(async (opts: WithReason) =>
      setCode(await callDaemon(io, opts, 'POST', '/trading/clear-auth-halt', opts.reason ? { reason: opts.reason } : {}, detail)),
    );
  for (const t of TRADING) {
    const cmd = program.command(t.name).description(t.description);
    if (t.alias) cmd.alias(t.alias);
    daemonOptions(cmd)
      .requiredOption('--reason <text>', 'why: journaled with the command')
      .action(async (opts: WithReason) => setCode(await callDaemon(io, opts, 'POST', t.path, { reason: opts.reason }, detail)));
  }
}
