// `sextant status | strategies | fills | orders open|recent|show`: what a running daemon says through its control
// API, as tables (or the JSON with --json). `orders list` reads the journal file instead, without a daemon.
// `sextant dashboard`: the dashboard's sign-in link, once the daemon has taken the token it holds.
import type { Command } from 'commander';
import type { ControlStatus, FillView, OrderView, StrategyView } from '../../ops/control.js';
import { systemClock } from '../../util/clock.js';
import type { Io, SetCode } from './io.js';
import { signInUrl } from '../http.js';
import { DaemonClient, callDaemon, daemonOptions, table, type DaemonOptions } from './daemon-client.js';

const ago = (nowMs: number, atMs: number | null) => (atMs === null ? 'never' : `${((nowMs - atMs) / 1000).toFixed(1)} s ago`);

function formatStatus(s: ControlStatus): string {
  const lines = [
    `mode      ${s.mode} on ${s.venue}`,
    `up        ${Math.round((s.nowMs - s.startedAtMs) / 1000)} s (sextant ${s.version})`,
    `trading   ${s.tradingState}${s.latches.length ? `: ${s.latches.map((l) => `${l.name}: ${l.reason}`).join('; ')}` : ''}`,
    `fence     ${s.fenced ?? 'none: new orders go'}`,
    `reconcile ${ago(s.nowMs, s.reconciliation.lastAtMs)}, ${s.reconciliation.unresolved} order(s) with an unknown outcome`,
    `polls     ${s.polls.map((p) => `${p.poll} ${p.ageMs === null ? 'never' : `${(p.ageMs / 1000).toFixed(1)} s`}`).join(', ')}`,
  ];
  if (s.budget.length)
    lines.push(
      '',
      table(
        ['pool', 'available', 'queued'],
        s.budget.map((b) => [b.pool, b.available === null ? 'unlimited' : String(b.available), String(b.queued)]),
      ),
    );
  return lines.join('\n');
}

function formatStrategies(list: StrategyView[]): string {
  if (list.length === 0) return 'no strategy runs on this daemon';
  return table(
    ['id', 'strategy', 'symbols', 'state', 'errors', 'realized', 'fees', 'fills', 'open', 'positions'],
    list.map((s) => [
      s.id,
      s.name,
      s.symbols.join(','),
      s.state + (s.lastError ? ` (${s.lastError})` : ''),
      String(s.errors),
      s.pnl.realized,
      s.pnl.fees,
      String(s.pnl.fills),
      String(s.openOrders),
      s.positions.map((p) => `${p.symbol} ${p.side} ${p.size}`).join('; ') || '-',
    ]),
  );
}

function formatOrders(list: OrderView[], nowMs: number): string {
  if (list.length === 0) return 'no orders';
  return table(
    ['client id', 'strategy', 'symbol', 'side', 'kind', 'price', 'size', 'filled', 'state', 'order id', 'age s'],
    list.map((o) => [
      o.clientOid,
      o.strategyId,
      o.symbol,
      o.side,
      o.kind,
      o.price ?? 'market',
      o.size,
      o.filledSize,
      o.state,
      o.orderId ?? '-',
      String(Math.round((nowMs - o.createdAtMs) / 1000)),
    ]),
  );
}

function formatFills(list: FillView[]): string {
  if (list.length === 0) return 'no fills';
  return table(
    ['time', 'strategy', 'symbol', 'price', 'size', 'fee', 'client id', 'fill id'],
    list.map((f) => [new Date(f.atMs).toISOString(), f.strategyId ?? '-', f.symbol ?? '-', f.price, f.size, f.fee, f.clientOid, f.fillId]),
  );
}

const query = (params: Record<string, string | number | undefined>) => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v));
  const text = q.toString();
  return text ? `?${text}` : '';
};

/** Prints the sign-in link of a running daemon, after checking the token found is the one it holds. */
async function dashboardLink(io: Io, opts: DaemonOptions): Promise<number> {
  let client: DaemonClient;
  let status: number;
  try {
    client = DaemonClient.from(opts);
    status = (await client.request('GET', '/status')).status;
  } catch (err) {
    io.err((err as Error).message);
    return 1;
  }
  const token = client.credential;
  if (token === undefined || status === 401) {
    io.err(
      `the daemon at ${client.baseUrl} ${token === undefined ? 'wrote no token file this config names, and no token is set' : 'holds another token than the one found'}: give it with --token (or SEXTANT_HTTP_TOKEN), or use the config the daemon runs with`,
    );
    return 1;
  }
  io.out(signInUrl(client.baseUrl, token));
  return 0;
}

export function registerDaemonReads(program: Command, io: Io, setCode: SetCode): void {
  daemonOptions(
    program
      .command('dashboard')
      .description("print the link that opens a running daemon's dashboard signed in (its token, from the token file it wrote or SEXTANT_HTTP_TOKEN)"),
  ).action(async (opts: DaemonOptions) => setCode(await dashboardLink(io, opts)));
  daemonOptions(
    program.command('status').description('a running daemon: mode, trading state and latches, fence, reconciliation, rate budget, poll ages (its control API)'),
  ).action(async (opts: DaemonOptions) => setCode(await callDaemon(io, opts, 'GET', '/status', undefined, (b) => formatStatus(b as ControlStatus))));
  daemonOptions(program.command('strategies').description("a running daemon's strategies: state, errors, PnL from their fills, open orders, positions")).action(
    async (opts: DaemonOptions) => setCode(await callDaemon(io, opts, 'GET', '/strategies', undefined, (b) => formatStrategies(b as StrategyView[]))),
  );
  daemonOptions(program.command('fills').description("a running daemon's latest fills, oldest first"))
    .option('--strategy <id>', 'of one strategy')
    .option('--limit <n>', 'how many (latest)', '50')
    .action(async (opts: DaemonOptions & { strategy?: string; limit: string }) =>
      setCode(
        await callDaemon(io, opts, 'GET', `/fills${query({ strategy: opts.strategy, limit: opts.limit })}`, undefined, (b) => formatFills(b as FillView[])),
      ),
    );
}

/** `orders open|recent|show`, beside `orders list` and `orders resolve` (the journal file): registered after them. */
export function registerDaemonOrders(program: Command, io: Io, setCode: SetCode): void {
  const orders = program.commands.find((c) => c.name() === 'orders') ?? program.command('orders').description('the orders of a running daemon');
  for (const scope of ['open', 'recent'] as const) {
    daemonOptions(
      orders
        .command(scope)
        .description(scope === 'open' ? "a running daemon's open orders (its control API)" : "a running daemon's latest orders of any state, newest first"),
    )
      .option('--strategy <id>', 'of one strategy')
      .option('--limit <n>', 'how many')
      .action(async (opts: DaemonOptions & { strategy?: string; limit?: string }) =>
        setCode(
          await callDaemon(io, opts, 'GET', `/orders${query({ scope, strategy: opts.strategy, limit: opts.limit })}`, undefined, (b) =>
            formatOrders(b as OrderView[], systemClock.now()),
          ),
        ),
      );
  }
  daemonOptions(orders.command('show').description('one order of a running daemon, with its journal history').argument('<clientOid>', 'client id')).action(
    async (clientOid: string, opts: DaemonOptions) =>
      setCode(
        await callDaemon(io, opts, 'GET', `/orders/${encodeURIComponent(clientOid)}`, undefined, (b) => {
          const { order, history } = b as { order: OrderView; history: Array<{ event: string; state: string; atMs: number }> };
          return [
            formatOrders([order], order.updatedAtMs),
            '',
            table(
              ['time', 'event', 'state'],
              history.map((h) => [new Date(h.atMs).toISOString(), h.event, h.state]),
            ),
          ].join('\n');
        }),
      ),
  );
}
