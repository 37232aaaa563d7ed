// `sextant orders list|resolve`: the orders in the journal, and settling one the venue cannot answer for.
import { Option, type Command } from 'commander';
import { systemClock } from '../../util/clock.js';
import { listOrders, settleOrder, SETTLE_AS, type SettleAs } from '../orders-command.js';
import { DEFAULT_CONFIG, type Io, type SetCode } from './io.js';
import { withJournal } from './with-journal.js';

export function registerOrders(program: Command, io: Io, setCode: SetCode): void {
  const orders = program.command('orders').description('the orders in the journal, and settling one the venue cannot answer for');
  orders
    .command('list')
    .description('the orders not final (in flight, resting, unanswered), or every order with --all')
    .option('--all', 'every order the journal holds')
    .option('-c, --config <file>', 'config file', DEFAULT_CONFIG)
    .action(async (opts: { config: string; all?: boolean }) =>
      setCode(await withJournal(opts.config, io, (journal) => listOrders(journal, systemClock.now(), !!opts.all).join('\n'))),
    );
  orders
    .command('resolve')
    .description('operator action: settle an order that is not final, journaled with the reason (a running daemon takes it in at its next reconciliation)')
    .argument('<id>', 'client id or venue order id')
    .addOption(new Option('--as <state>', 'what became of it').choices([...SETTLE_AS]).makeOptionMandatory())
    .requiredOption('--reason <text>', "why: kept in the order's history")
    .option('-c, --config <file>', 'config file', DEFAULT_CONFIG)
    .action(async (id: string, opts: { as: SettleAs; reason: string; config: string }) =>
      setCode(
        await withJournal(opts.config, io, (journal) => {
          const row = settleOrder(journal, id, opts.as, opts.reason, systemClock.now());
          return `${row.clientOid}${row.orderId ? ` (order ${row.orderId})` : ''}: ${row.state}`;
        }),
      ),
    );
}
