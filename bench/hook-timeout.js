// Cost per strategy hook call of the ways to stop a hook that runs over its budget (`node bench/hook-timeout.js`,
// on the compiled dist/): JSON lines as in bench/run.js, `bare` being the plain call in the same run.
import vm from 'node:vm';
import { MessageChannel, Worker, receiveMessageOnPort } from 'node:worker_threads';
import { StrategyRunner } from '../dist/strategy/runner.js';
import { DEFAULT_INSTRUMENTS, toInstrument } from '../dist/exchange/sim/instruments.js';
import { silentLogger } from '../dist/util/logger.js';
import { z } from '../dist/strategy/api.js';
import { emit } from './emit.js';

const quick = process.argv.includes('--quick');
const N = quick ? 20_000 : 100_000;

/** Median nanoseconds per call of `fn` over `n` calls (5 rounds, after a warm-up). */
function nsPerCall(n, fn) {
  for (let i = 0; i < Math.min(n, 2000); i++) fn(i);
  const rounds = [];
  for (let r = 0; r < 5; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn(i);
    rounds.push(Number(process.hrtime.bigint() - t0) / n);
  }
  return rounds.sort((a, b) => a - b)[2];
}

// A hook of the size of bench/strategies/bench-watch.ts: reads a price, keeps a running high.
const hook = (ctx, update) => {
  const x = update.price;
  if (!(x <= ctx.state.high)) ctx.state.high = x;
};
const ctx = { state: { high: 0 } };
const update = { nowMs: 0, price: 1 };
const direct = nsPerCall(N * 10, (i) => {
  update.price = i % 1000;
  hook(ctx, update);
});

// node:vm: one context, one compiled script calling a function from outside the context.
let pending;
const context = vm.createContext({ run: () => pending() });
const script = new vm.Script('run()');
const vmPlain = nsPerCall(N, (i) => {
  update.price = i % 1000;
  pending = () => hook(ctx, update);
  return script.runInContext(context);
});
const vmTimeout = nsPerCall(N / 5, (i) => {
  update.price = i % 1000;
  pending = () => hook(ctx, update);
  return script.runInContext(context, { timeout: 1000 });
});
emit(
  'hook_call_vm_context_ns',
  vmPlain,
  'ns/call',
  direct,
  'vm Script.runInContext without timeout (entering the context only: cannot stop anything); bare: the plain call',
);
emit(
  'hook_call_vm_timeout_ns',
  vmTimeout,
  'ns/call',
  direct,
  'vm Script.runInContext with timeout: a watchdog thread per call interrupts the hook; bare: the plain call',
);

// A worker thread holding the strategy: the update cloned over a MessagePort, the caller blocked on Atomics.wait
// with the deadline (terminate() and a new worker when it passes), the answer read with receiveMessageOnPort.
{
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(
    `
    const { workerData } = require('node:worker_threads');
    const flag = new Int32Array(workerData.sab);
    const ctx = { state: { high: 0 } };
    workerData.port.on('message', (update) => {
      if (!(update.price <= ctx.state.high)) ctx.state.high = update.price;
      workerData.port.postMessage(null);
      Atomics.store(flag, 0, 1);
      Atomics.notify(flag, 0);
    });`,
    { eval: true, workerData: { port: port2, sab: flag.buffer }, transferList: [port2] },
  );
  await new Promise((resolve) => worker.once('online', resolve));
  const call = (i) => {
    Atomics.store(flag, 0, 0);
    port1.postMessage({ nowMs: i, price: i % 1000 });
    if (Atomics.wait(flag, 0, 0, 1000) === 'timed-out') throw new Error('deadline');
    return receiveMessageOnPort(port1);
  };
  emit(
    'hook_call_worker_rpc_ns',
    nsPerCall(N / 5, call),
    'ns/call',
    direct,
    'synchronous call into a worker thread (structured clone of a 2-field update; real updates carry Maps of Decimals, which lose their class); bare: the plain call',
  );
  port1.close();
  await worker.terminate();
}

// The process's hook watchdog (as the daemon runs hooks): one keeper thread, no thread per call. Its median per call,
// and the p99 of single calls beside node:vm's timeout's (whose thread start and join make the tail).
const { HookWatchdog } = await import('../dist/strategy/hook-watchdog.js');
const { Deadline } = await import('../dist/strategy/deadline.js');
{
  const watchdog = HookWatchdog.enable();
  for (let i = 0; i < 200 && !watchdog?.keeping; i++) await new Promise((r) => setTimeout(r, 10));
  if (!watchdog?.keeping) throw new Error('the hook watchdog did not start');
  const d = new Deadline(1000);
  const perCall = nsPerCall(N / 5, (i) => {
    update.price = i % 1000;
    return d.run(() => hook(ctx, update));
  });
  emit(
    'hook_call_watchdog_ns',
    perCall,
    'ns/call',
    vmTimeout,
    "the process hook watchdog (hook-watchdog.ts, the daemon's): a keeper thread samples the running hook; bare: vm timeout (a thread per call)",
  );
  const p99 = (f) => {
    const t = [];
    for (let i = 0; i < 20_000; i++) {
      const a = process.hrtime.bigint();
      f(i);
      t.push(Number(process.hrtime.bigint() - a));
    }
    return t.sort((a, b) => a - b)[Math.floor(t.length * 0.99)];
  };
  const wdP99 = p99((i) => {
    update.price = i % 1000;
    return d.run(() => hook(ctx, update));
  });
  const vmP99 = p99((i) => {
    update.price = i % 1000;
    pending = () => hook(ctx, update);
    return script.runInContext(context, { timeout: 1000 });
  });
  emit('hook_call_watchdog_p99_ns', wdP99, 'ns/call', vmP99, 'p99 of 20,000 single calls under the hook watchdog; bare: the same under vm timeout');
  watchdog.close();
}

// The StrategyRunner itself, one instance, one onMarket per call: without and with hookTimeoutMs (node:vm's timeout:
// no watchdog enabled here).
{
  const instruments = new Map(DEFAULT_INSTRUMENTS.map((s) => [s.symbol, toInstrument(s)]));
  const def = {
    name: 'bench-hook',
    params: z.strictObject({}),
    onMarket: (c, u) => {
      if (!(u.nowMs <= (c.state.high ?? -1))) c.state.high = u.nowMs;
    },
  };
  const make = (opts) =>
    new StrategyRunner({
      instances: [{ cfg: { id: 'b', name: 'bench-hook', symbols: ['cmt_btcusdt'], params: {} }, def }],
      instruments,
      logger: silentLogger,
      maxErrors: 5,
      ...opts,
    });
  const u = { nowMs: 0, tickers: new Map(), openOrders: [], positions: [], balances: [] };
  const build = () => u;
  const plain = make({});
  const timed = make({ hookTimeoutMs: 1000 });
  const without = nsPerCall(N * 2, (i) => {
    u.nowMs = i;
    plain.onMarket(build);
  });
  const withTimeout = nsPerCall(N / 5, (i) => {
    u.nowMs = i;
    timed.onMarket(build);
  });
  emit('runner_on_market_ns', without, 'ns/call', direct, 'StrategyRunner.onMarket, one instance, no hookTimeoutMs; bare: the plain hook call');
  emit(
    'runner_on_market_hook_timeout_ns',
    withTimeout,
    'ns/call',
    without,
    `StrategyRunner.onMarket with hookTimeoutMs; bare: the same without it; a 1M-call backtest would spend ${((withTimeout - without) / 1000).toFixed(1)} s more`,
  );
}
