// One process of the simulated daemon: its own view of virtual time (its timers die with it, and wait while it is
// frozen), its journal handle on the shared file, its lease, its client to the venue, its polls and its core. A
// crash is the process dying where it stands: nothing it had in hand goes on, what it wrote to the journal stays.
import type { Stamped } from '../../data/poll.js';
import type { Balance, Position, Ticker } from '../../domain/market.js';
import type { Order } from '../../domain/order.js';
import type { ExchangeClient } from '../../exchange/client.js';
import type { Journal } from '../../journal/journal.js';
import type { Clock, ClockTimer, VirtualClock } from '../../util/clock.js';
import { DirectStream } from '../../util/direct-stream.js';
import type { Core } from '../core.js';
import type { MarketStreams } from '../trading-loop.js';

/** Thrown where the process dies: nothing after it runs. */
export class Crash extends Error {
  constructor(where: string) {
    super(`the process died (${where})`);
    this.name = 'Crash';
  }
}

/** A process's clock: the run's virtual time, its timers run only while it lives, and only once it thaws. */
export class ProcessClock implements Clock {
  constructor(
    private readonly v: VirtualClock,
    private readonly proc: { alive: boolean; frozenUntilMs: number },
  ) {}

  now(): number {
    return this.v.now();
  }

  /** Runs `fn` now if the process lives and is not frozen; frozen, when it thaws (in the order they came due). */
  run(fn: () => void): void {
    if (!this.proc.alive) return;
    if (this.v.now() < this.proc.frozenUntilMs) return void this.v.at(this.proc.frozenUntilMs, () => this.run(fn));
    fn();
  }

  setTimer(fn: () => void, ms: number): ClockTimer {
    const t = { canceled: false };
    this.v.at(this.v.now() + Math.max(0, ms), () => t.canceled || this.run(fn));
    return { cancel: () => void (t.canceled = true) };
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.v.at(this.v.now() + Math.max(0, ms), () => this.run(resolve)));
  }
}

/** A journal handle that refuses every call once its process has died (what a dead process never writes). */
export function mortalJournal(journal: Journal, proc: { alive: boolean }): Journal {
  return new Proxy(journal, {
    get(target, key) {
      const value = Reflect.get(target, key) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (!proc.alive) throw new Crash(`journal.${String(key)}`);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

export interface PollPeriods {
  tickersMs: number;
  ordersMs: number;
  balancesMs: number;
  positionsMs: number;
}

/** What the process polls, and where it sends what it reads. */
export interface PollPlan {
  client: ExchangeClient;
  periods: PollPeriods;
  spot: readonly string[];
  futures: readonly string[];
  /** Polls' answers come twice while this says so (the second one later): a stale copy after a fresh one. */
  duplicate: () => number;
}

/** The market-data streams of a process, polled through its client on its own clock (a cycle in flight is not doubled). */
export function startPolls(clock: ProcessClock, plan: PollPlan): MarketStreams {
  const streams = {
    tickers$: new DirectStream<Stamped<Map<string, Ticker>>>(),
    openOrders$: new DirectStream<Stamped<Order[]>>(),
    balances$: new DirectStream<Stamped<Balance[]>>(),
    positions$: new DirectStream<Stamped<Position[]>>(),
  };
  const { client, spot, futures } = plan;
  const every = <T>(periodMs: number, offsetMs: number, read: () => Promise<T>, out: DirectStream<Stamped<T>>) => {
    let busy = false;
    let seq = 0;
    const cycle = () => {
      clock.setTimer(cycle, periodMs);
      if (busy) return;
      busy = true;
      const atMs = clock.now();
      const s0 = seq++;
      read().then(
        (value) => {
          busy = false;
          const s = { value, atMs, seq: s0 };
          out.next(s);
          const again = plan.duplicate();
          if (again > 0) clock.setTimer(() => out.next(s), again);
        },
        () => void (busy = false),
      );
    };
    clock.setTimer(cycle, offsetMs);
  };
  const all = <T>(xs: Array<Promise<T[]>>) => Promise.all(xs).then((a) => a.flat());
  const p = plan.periods;
  every(
    p.tickersMs,
    0,
    async () => {
      const [fut, ...sp] = await Promise.all([client.tickers(), ...spot.map((s) => client.ticker(s))]);
      const m = new Map<string, Ticker>();
      for (const t of fut as Ticker[]) if (futures.includes(t.symbol)) m.set(t.symbol, t);
      for (const t of sp as Ticker[]) m.set(t.symbol, t);
      return m;
    },
    streams.tickers$,
  );
  every(
    p.ordersMs,
    100,
    () => all([...spot.map((s) => client.openOrders('spot', s)), ...futures.map((s) => client.openOrders('futures', s))]),
    streams.openOrders$,
  );
  every(p.balancesMs, 200, () => all([client.balances('spot'), client.balances('futures')]), streams.balances$);
  every(p.positionsMs, 300, () => client.allPositions(), streams.positions$);
  return streams;
}

/** The parts a process holds once started. */
export interface ProcessParts {
  journal: Journal;
  core?: Core;
}
