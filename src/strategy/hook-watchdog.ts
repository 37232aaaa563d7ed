// One watchdog for the whole process that stops a strategy hook running over its budget (deadline.ts), without a
// thread per hook call: the call costs two writes to shared memory instead of starting and joining a thread.
//
// How it stops a hook. node:vm interrupts a script run with `breakOnSigint` when the process gets SIGINT, through one
// helper thread of Node's that lives while any such run is open. A worker thread (the keeper) keeps one open for the
// life of the process: a wait inside a vm context. So a hook's own `breakOnSigint` run finds the helper up and starts
// no thread. The keeper also watches: each period it samples which hook runs (a serial in shared memory); when the same
// one has been seen running for its budget, it claims it (compare-and-exchange, against the hook's own end) and sends
// the process SIGINT. The helper hands a SIGINT to the run opened last, the hook's, which stops; the keeper's own run
// catches one only while no hook runs.
//
// A hook is stopped once it has run its budget, within two periods more (a period: a tenth of the budget, 5 to 100 ms;
// 100 ms until the keeper has seen a budget).
//
// SIGINT (Ctrl+C) keeps its meaning. While the keeper holds the helper, no listener may sit on the process's SIGINT:
// Node takes such listeners off around each breakOnSigint run, which would leave SIGINT's default action (the end of
// the process) armed while a hook runs; and adding or removing one moves SIGINT away from the helper. So the watchdog
// moves them to its own list before a hook runs (and has the keeper take SIGINT back), and calls them for a SIGINT that
// no claim sent (caught by the keeper, or stopping a hook); with none left, the process ends by SIGINT as it would have.
//
// It takes SIGINT over, so the process's owner turns it on (`HookWatchdog.enable()`: the daemon does); a process that
// has not, any thread but the main one, or a keeper that failed, gets node:vm's per-call watchdog.
import process from 'node:process';
import vm from 'node:vm';
import { isMainThread, Worker } from 'node:worker_threads';

/** Shared slots: the running hook's serial (0: none; negative: claimed), its budget, the keeper's state. */
const RUNNING = 0;
const BUDGET = 1;
/** 1 while the keeper's run is open; counts the times it (re)opened in the upper bits. */
const KEEPER = 2;
const STOP = 3;
/** Set by the main thread when the keeper should close its run and open it again (SIGINT listeners were moved). */
const REARM = 4;
const SLOTS = 5;

const KEEPER_SCRIPT = `
'use strict';
const vm = require('node:vm');
const { workerData, parentPort } = require('node:worker_threads');
const s = new Int32Array(workerData.sab);
const [RUNNING, BUDGET, KEEPER, STOP, REARM] = workerData.slots;
const kill = () => process.kill(process.pid, 'SIGINT');
let opened = 0;
// Said from inside the run, once Node has registered it: a hook's run opened after this is the one a SIGINT reaches.
const markOpen = () => {
  Atomics.store(s, KEEPER, (opened << 1) | 1);
  Atomics.notify(s, KEEPER);
};
const context = vm.createContext({ Atomics, Math, s, RUNNING, BUDGET, STOP, REARM, kill, markOpen });
// The watch, inside the run that keeps Node's SIGINT helper up. Returns when asked to stop or to re-arm. A hook is
// first seen within a period of its start and claimed once seen running for its budget: never early, and at most
// two periods late.
const watch = new vm.Script(\`
  (() => {
    markOpen();
    let seen = 0;
    let since = 0;
    let period = 100;
    while (Atomics.load(s, STOP) === 0 && Atomics.load(s, REARM) === 0) {
      const r = Atomics.load(s, RUNNING);
      const budget = Atomics.load(s, BUDGET);
      if (budget > 0) period = Math.min(100, Math.max(5, Math.floor(budget / 10)));
      if (r <= 0 || r !== seen) {
        seen = r > 0 ? r : 0;
        since = 0;
      } else if ((since += period) >= budget && Atomics.compareExchange(s, RUNNING, r, -r) === r) {
        kill();
      }
      Atomics.wait(s, STOP, 0, period);
    }
  })()\`);
while (Atomics.load(s, STOP) === 0) {
  Atomics.store(s, REARM, 0);
  opened++;
  try {
    watch.runInContext(context, { breakOnSigint: true });
    Atomics.store(s, KEEPER, opened << 1);
  } catch (err) {
    Atomics.store(s, KEEPER, opened << 1);
    if (err === null || err.code !== 'ERR_SCRIPT_EXECUTION_INTERRUPTED') throw err;
    const r = Atomics.load(s, RUNNING);
    if (r < 0) {
      // A claim's SIGINT reached this run, opened after the hook's (it had just caught another SIGINT): out of it,
      // the hook's run (which stays open until a claim's SIGINT reaches it) is the only one; send it again until it has.
      while (Atomics.load(s, RUNNING) === r && Atomics.load(s, STOP) === 0) {
        kill();
        Atomics.wait(s, RUNNING, r, 100);
      }
    } else {
      // No claim: the user's SIGINT.
      parentPort.postMessage('SIGINT');
    }
  }
}
Atomics.notify(s, KEEPER);
`;

/** A hook was stopped by a SIGINT of the user's (the process is asked to stop), not for its budget. */
export class HookInterruptedError extends Error {}

/** What a watched run ended as, besides returning. */
export type WatchedEnd = 'overran' | 'interrupted';

/** The process's watchdog of hooks (main thread); undefined where it cannot run. */
export class HookWatchdog {
  private static instance: HookWatchdog | undefined;

  /**
   * Turns the watchdog on for this process (the main thread; elsewhere it does nothing) and starts its keeper: from
   * the time the keeper is up, hooks run under it, and it handles SIGINT as said above.
   */
  static enable(): HookWatchdog | undefined {
    if (!isMainThread) return undefined;
    try {
      HookWatchdog.instance ??= new HookWatchdog();
    } catch {
      return undefined;
    }
    return HookWatchdog.instance;
  }

  /** The process's watchdog once enabled, until closed. */
  static get(): HookWatchdog | undefined {
    return HookWatchdog.instance;
  }

  private readonly s = new Int32Array(new SharedArrayBuffer(SLOTS * Int32Array.BYTES_PER_ELEMENT));
  private readonly worker: Worker;
  private readonly context = vm.createContext({ run: () => this.body() });
  private readonly script = new vm.Script('run()');
  /** The hook running, its serial, and what it returned. */
  private pending: (() => unknown) | undefined;
  private current = 0;
  private value: unknown;
  /** A claim whose SIGINT never came (within 2 s): the hook is taken as having overrun. */
  private claimLost = false;
  private serial = 0;
  private adoptQueued = false;
  private closed = false;
  /** The process's SIGINT listeners, moved here while the keeper runs. */
  private readonly sigintListeners: Array<(...args: unknown[]) => unknown> = [];
  /** A SIGINT listener was added to the process or taken off it since the keeper last took SIGINT. */
  private sigintMoved = false;
  private readonly onListenerChange = (event: string | symbol) => {
    if (event !== 'SIGINT') return;
    this.sigintMoved = true;
    // Taken over soon, not only before the next hook (which may be long in coming): until then the listener added
    // holds SIGINT, and the ones moved here would not hear it.
    if (this.adoptQueued) return;
    this.adoptQueued = true;
    setImmediate(() => {
      this.adoptQueued = false;
      if (this.sigintMoved && this.keeping) this.adoptSigintListeners();
    }).unref();
  };

  private constructor() {
    this.worker = new Worker(KEEPER_SCRIPT, {
      eval: true,
      workerData: { sab: this.s.buffer, slots: [RUNNING, BUDGET, KEEPER, STOP, REARM] },
      execArgv: [],
    });
    this.worker.on('message', (m) => {
      if (m === 'SIGINT') this.userSigint();
    });
    // A keeper that failed gives SIGINT back: its listeners return to the process, hooks go back to node:vm's timeout.
    this.worker.on('error', () => this.close());
    // Never what keeps the process alive (after the listeners: a message listener refs the thread's port again).
    this.worker.unref();
    process.on('newListener', this.onListenerChange);
    process.on('removeListener', this.onListenerChange);
    // Hooks use it once the keeper's run is open; until then they get node:vm's per-call watchdog, and the process's
    // SIGINT listeners stay where they are.
  }

  /** The keeper's run is open (Node's SIGINT helper is up through it): hooks run under this watchdog. */
  get keeping(): boolean {
    return !this.closed && (Atomics.load(this.s, KEEPER) & 1) === 1;
  }

  /**
   * Runs `fn` under `budgetMs`: its value, or 'overran' (stopped at its budget, or ended after it was claimed) or
   * 'interrupted' (the user's SIGINT stopped it). Undefined when the keeper is not up: the caller uses another way.
   */
  run<T>(fn: () => T, budgetMs: number): { value: T } | WatchedEnd | undefined {
    if (!this.keeping) return undefined;
    if (this.sigintMoved || process.listenerCount('SIGINT') > 0) {
      this.adoptSigintListeners();
      if (!this.keeping) return undefined;
    }
    const serial = (this.serial = (this.serial % 0x3fffffff) + 1);
    Atomics.store(this.s, BUDGET, budgetMs);
    Atomics.store(this.s, RUNNING, serial);
    this.current = serial;
    this.pending = fn;
    this.claimLost = false;
    try {
      this.script.runInContext(this.context, { breakOnSigint: true });
      return this.claimLost ? 'overran' : { value: this.value as T };
    } catch (err) {
      // The hook's own error (body() has settled the slot), or a SIGINT that stopped the run.
      if ((err as { code?: unknown } | null)?.code !== 'ERR_SCRIPT_EXECUTION_INTERRUPTED') throw err;
      if (Atomics.compareExchange(this.s, RUNNING, -serial, 0) === -serial) return 'overran';
      Atomics.compareExchange(this.s, RUNNING, serial, 0);
      queueMicrotask(() => this.userSigint());
      return 'interrupted';
    } finally {
      this.pending = undefined;
      this.value = undefined;
    }
  }

  /**
   * Inside the hook's run: the hook, then its end told. Claimed as it ended (or threw), its SIGINT is on the way; it
   * waits for it here, in the run it must reach, so that it can neither stop the next hook nor pass for the user's.
   */
  private body(): void {
    let failed = false;
    let error: unknown;
    try {
      this.value = this.pending!();
    } catch (err) {
      failed = true;
      error = err;
    }
    const serial = this.current;
    if (Atomics.compareExchange(this.s, RUNNING, serial, 0) === serial) {
      if (failed) throw error;
      return;
    }
    Atomics.wait(this.s, RUNNING, -serial, 2000);
    // Not come: the slot is set back (a SIGINT later still finds the keeper's run) and the hook counts as overrun.
    Atomics.compareExchange(this.s, RUNNING, -serial, 0);
    this.claimLost = true;
  }

  /**
   * Moves the process's SIGINT listeners to this watchdog's list, and has the keeper open its run again: adding a
   * listener took SIGINT away from Node's helper, and only a helper that starts again takes it back.
   */
  private adoptSigintListeners(): void {
    for (const l of process.rawListeners('SIGINT')) this.sigintListeners.push(l as (...args: unknown[]) => unknown);
    process.removeAllListeners('SIGINT');
    this.sigintMoved = false;
    const before = Atomics.load(this.s, KEEPER);
    Atomics.store(this.s, REARM, 1);
    Atomics.notify(this.s, STOP);
    // Closed and open again: a new count of openings, the run bit set.
    for (let i = 0; i < 50; i++) {
      const now = Atomics.load(this.s, KEEPER);
      if (now >>> 1 !== before >>> 1 && (now & 1) === 1) return;
      Atomics.wait(this.s, KEEPER, now, 100);
    }
    this.close();
  }

  /**
   * A SIGINT that no claim sent: the moved listeners are called (a `once` one leaves), and those still on the process
   * (added before the keeper's run was open and not moved yet: no hook has run since) too; with none, the default
   * action.
   */
  private userSigint(): void {
    const listeners = [...this.sigintListeners];
    for (const l of listeners) {
      if ((l as { listener?: unknown }).listener !== undefined) this.sigintListeners.splice(this.sigintListeners.indexOf(l), 1);
    }
    const onProcess = process.listenerCount('SIGINT') > 0;
    if (listeners.length > 0 || onProcess) {
      for (const l of listeners) l.call(process, 'SIGINT');
      if (onProcess) process.emit('SIGINT', 'SIGINT');
      return;
    }
    this.close();
    process.kill(process.pid, 'SIGINT');
  }

  /** Ends the keeper: hooks go back to node:vm's per-call watchdog, SIGINT listeners to the process. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    Atomics.store(this.s, STOP, 1);
    Atomics.notify(this.s, STOP);
    // Its run closed before this returns: a SIGINT from now on finds Node's helper down (or held by a hook alone).
    for (let i = 0; i < 20; i++) {
      const now = Atomics.load(this.s, KEEPER);
      if ((now & 1) === 0) break;
      Atomics.wait(this.s, KEEPER, now, 50);
    }
    process.off('newListener', this.onListenerChange);
    process.off('removeListener', this.onListenerChange);
    if (HookWatchdog.instance === this) HookWatchdog.instance = undefined;
    // The listeners it held go back to the process.
    for (const l of this.sigintListeners.splice(0)) process.on('SIGINT', l);
    void this.worker.terminate();
  }
}
