// The live path from a ticker answer to the order request it causes (`node bench/tick-to-request.js [--quick]`, on
// the compiled dist/; bench/run.js runs it too). A ticker answer from `sextant sim` (HTTP) goes to the strategies;
// the one order it causes goes through the strategy hook (under its time limit, as the daemon runs it), the risk gate,
// the journal (on disk, synchronous), the limiter, signing and undici back to `sextant sim` (a process of its own, as a
// venue is). Measured from the ticker answer in hand to the order request arriving at the simulator, over 1,000 orders
// after 50 that warm the path up (the p99 of a few hundred is its few slowest).
// Bare: a plain http.request POST of an order body to the same server, to its arrival. Run twice: as is, and with
// notifications on whose receiver is down (a webhook to a closed port, retried hard), which must not slow it.
import { fork } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Subject } from 'rxjs';
import { systemClock } from '../dist/util/clock.js';
import { silentLogger } from '../dist/util/logger.js';
import { emit } from './emit.js';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

/** Orders sent before the measured ones, while the JIT compiles the path (and the bare requests' likewise). */
const WARM_UP = 50;

/** A loopback port nothing listens on. */
async function closedPort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** How a notifier whose receiver is down retries: the config's defaults, or as often as the config allows. */
const RETRY = { defaults: '', hard: '  retry: { attempts: 20, baseDelayMs: 100, maxDelayMs: 100 }' };

/**
 * Tick-to-request latencies (ms) of `n` orders, and the bare figures; with `notifyDown` (a key of RETRY), a fill
 * notice per order goes to a webhook notifier whose receiver is down. Returns the notifier's counts too.
 */
export async function tickToRequest({ n, notifyDown }) {
  const { loadConfig } = await import('../dist/config/load.js');
  const { createLiveClient, riskLimits, SIM_DEMO_CREDENTIALS } = await import('../dist/app/kernel.js');
  const { openJournal } = await import('../dist/app/kernel-stores.js');
  const { buildCore } = await import('../dist/app/core.js');
  const dir = mkdtempSync(join(tmpdir(), 'sextant-bench-live-'));
  const cfgFile = join(dir, 'live.yaml');
  const notifyLines = notifyDown
    ? [
        'notify:',
        `  webhooks: [{ name: down, url: "http://127.0.0.1:${await closedPort()}/hook", secretEnv: BENCH_HOOK_SECRET, maxPerMinute: 600, burst: { max: 100000 }, events: [fill, rejection, kill-switch, strategy-fault, strategy, reconciliation, unknown-order, command] }]`,
        RETRY[notifyDown],
      ]
    : [];
  writeFileSync(
    cfgFile,
    [
      'mode: live',
      `journal: { path: ${JSON.stringify(join(dir, 'journal.sqlite'))} }`,
      'exchange: { rateLimit: { spot: { ip: { budget: 1000000 }, uid: { budget: 1000000 } }, futures: { ip: { budget: 1000000 }, uid: { budget: 1000000 } }, orderRequests: { budget: 100000 } } }',
      'sim: { budget: { spot: { ip: 1000000, uid: 1000000 }, futures: { ip: 1000000, uid: 1000000 }, orderRequestsPerSecond: 100000 } }',
      'risk: { maxNotionalPerOrder: "100000", maxNotionalPerSymbol: "1000000", maxOrdersPerMinute: 1000000 }',
      `strategyDirs: [${JSON.stringify(resolve('bench/strategies'))}]`,
      'strategies: [{ id: tick, name: bench-trade, symbols: [cmt_btcusdt], params: { every: 1 } }]',
      'log: { level: error }',
      ...notifyLines,
    ].join('\n') + '\n',
  );
  const loaded = loadConfig(cfgFile, {});
  let arrived;
  let failed;
  // The venue in a process of its own (its market and matching do not run on the bot's event loop): each order's
  // arrival is told on the clock both processes share, turned into this process's performance.now().
  const sim = fork(fileURLToPath(new URL('./sim-child.js', import.meta.url)), [cfgFile], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const url = await new Promise((resolve, reject) => {
    sim.once('message', (m) => resolve(m.url));
    sim.once('exit', (code) => reject(new Error(`the simulator exited (${code})`)));
  });
  sim.on('message', (m) => {
    if (m.arrivedAtMs !== undefined) arrived?.(m.arrivedAtMs - performance.timeOrigin);
  });
  const effective = {
    ...loaded,
    credentials: SIM_DEMO_CREDENTIALS,
    config: { ...loaded.config, exchange: { ...loaded.config.exchange, spotBaseUrl: url, futuresBaseUrl: url } },
  };
  const client = createLiveClient(effective, silentLogger, systemClock);
  const journal = openJournal(loaded);
  const instruments = new Map();
  for (const s of ['spot', 'futures']) for (const i of await client.instruments(s)) instruments.set(i.symbol, i);
  const streams = { tickers$: new Subject(), openOrders$: new Subject(), balances$: new Subject(), positions$: new Subject() };
  // As the daemon runs hooks: inside their time budget, under the process's hook watchdog.
  const { HookWatchdog } = await import('../dist/strategy/hook-watchdog.js');
  HookWatchdog.enable();
  const core = await buildCore({
    instruments,
    bind: () => ({ trading: client, streams }),
    journal,
    clock: systemClock,
    logger: silentLogger,
    limits: riskLimits(loaded),
    tracking: loaded.config.execution,
    strategies: { instances: loaded.config.strategies, dirs: loaded.config.strategyDirs, maxErrors: 5, hookTimeoutMs: loaded.config.daemon.hookTimeoutMs },
    fencedUntilReconciled: false,
  });
  // Notifications as the daemon wires them: the Control over the core, the notifiers listening to it.
  let control;
  let notifiers;
  if (notifyDown) {
    const { ControlService } = await import('../dist/app/control-service.js');
    const { startNotifiers } = await import('../dist/ops/notify/notifiers.js');
    control = new ControlService({
      core,
      clock: systemClock,
      logger: silentLogger,
      mode: 'live',
      lastPolled: new Map(),
      reload: async () => [],
      flatten: async () => 'not here',
    });
    notifiers = startNotifiers(loaded.config.notify, control, { clock: systemClock, logger: silentLogger, env: { BENCH_HOOK_SECRET: 'bench-secret' } });
    // Fills reach the core through the order polls, which this bench does not run: each accepted order stands for
    // its fill, a notice offered from a listener on the Control as the notifiers' own (the channel has work).
    control.onEvent((e) => {
      if (e.kind === 'order' && e.data.type === 'accepted')
        for (const ch of notifiers.channels) ch.offer({ topic: 'fill', text: `Fill: ${e.text}`, atMs: e.atMs, strategyId: 'tick', event: e });
    });
  }
  const { executor } = core;
  core.start();
  // An order that does not go out (denied, refused) ends the measurement with the reason, not a wait.
  executor.events$.subscribe((e) => {
    if (e.type === 'denied' || e.type === 'rejected' || e.type === 'unknown') failed?.(new Error(`order ${e.type}: ${e.reason}`));
  });
  const ours = [];
  for (let k = 0; k < WARM_UP + n; k++) {
    const t = (await client.tickers()).find((x) => x.symbol === 'cmt_btcusdt');
    const at = new Promise((resolve, reject) => {
      arrived = resolve;
      failed = reject;
    });
    const t0 = performance.now();
    streams.tickers$.next({ value: new Map([[t.symbol, t]]), atMs: Date.now() });
    const took = (await at) - t0;
    if (k >= WARM_UP) ours.push(took);
    while (core.inFlight.size > 0) await Promise.all([...core.inFlight]);
    // The order polls a daemon runs conclude each market order soon after; this bench runs none, so it concludes
    // them itself, outside the measurement, rather than let every order it ever sent stay in the active set.
    for (const r of journal.activeOrders()) journal.updateOrder(r.clientOid, { state: 'filled', filledSize: r.size }, 'filled (bench)', Date.now());
  }
  const bare = [];
  const agent = new http.Agent({ keepAlive: true });
  const order = JSON.stringify({
    symbol: 'cmt_btcusdt',
    orderDataList: [{ client_oid: 'bare', size: '0.0001', type: '1', order_type: '0', match_price: '1', price: '' }],
  });
  for (let k = 0; k < WARM_UP + n; k++) {
    const at = new Promise((resolve) => (arrived = resolve));
    const t0 = performance.now();
    const req = http.request(`${url}/capi/v2/order/batchOrders`, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) =>
      res.resume(),
    );
    req.on('error', () => undefined); // unsigned: the simulator refuses it, after it arrived
    req.end(order);
    const took = (await at) - t0;
    if (k >= WARM_UP) bare.push(took);
  }
  agent.destroy();
  const counts = notifiers ? { listened: notifiers.listened.events, ...notifiers.channels[0].counts, pending: notifiers.channels[0].pending } : undefined;
  await notifiers?.stop();
  control?.stop();
  core.stopIntake();
  await client.close();
  journal.close();
  await new Promise((resolve) => {
    sim.once('exit', resolve);
    sim.disconnect();
  });
  rmSync(dir, { recursive: true, force: true });
  return { ours, bare, counts };
}

/** Emits the figures of both runs. */
export async function runTickToRequest({ quick }) {
  const n = quick ? 100 : 1000;
  const plain = await tickToRequest({ n });
  emit(
    'tick_to_request_p50',
    median(plain.ours),
    'ms',
    median(plain.bare),
    `live path against sextant sim over loopback, ${plain.ours.length} orders after ${WARM_UP} to warm up; bare: plain http.request POST to the same server`,
  );
  emit('tick_to_request_p99', quantile(plain.ours, 0.99), 'ms', quantile(plain.bare, 0.99));
  for (const [suffix, retry, how] of [
    ['', 'defaults', 'retried as notify.retry defaults: 5 tries, 1 s doubling'],
    ['_hard', 'hard', 'retried every 100 ms, the most the config allows, 20 tries each'],
  ]) {
    const down = await tickToRequest({ n, notifyDown: retry });
    emit(
      `tick_to_request_notify_down${suffix}_p50`,
      median(down.ours),
      'ms',
      median(plain.ours),
      `as tick_to_request with notifications on: a fill notice per order to a webhook whose receiver is down (closed port, ${how}); bare: tick_to_request_p50 of the same run; notifier ${JSON.stringify(down.counts)}`,
    );
    emit(`tick_to_request_notify_down${suffix}_p99`, quantile(down.ours, 0.99), 'ms', quantile(plain.ours, 0.99));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runTickToRequest({ quick: process.argv.includes('--quick') });
