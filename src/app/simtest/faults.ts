// A fault of the schedule, done to the run as its time comes: to the venue (its standing troubles, one-off answers,
// a restart that forgets its orders, a price gap), to the daemon's process (a crash, a freeze), to the lease store (a
// partition, a second daemon that takes the lease and fences the journal), to the strategies (a throw, a flood).
import type { Instrument } from '../../domain/market.js';
import type { VenueFaults } from '../../exchange/sim/fault-client.js';
import type { SyntheticMarket } from '../../exchange/sim/market.js';
import type { SimulatedExchange } from '../../exchange/sim/simulated-exchange.js';
import { JournalFencedError } from '../../journal/journal.js';
import { SqliteJournal } from '../../journal/sqlite-journal.js';
import type { VirtualClock } from '../../util/clock.js';
import type { Chaos } from './generators.js';
import type { MemoryLeaseStore } from './lease-store.js';
import { faultEndMs, type Fault } from './schedule.js';

/** What the faults act on: the run's parts, and its process of the daemon as it is now. */
export interface FaultTargets {
  clock: VirtualClock;
  faults: VenueFaults;
  sim: SimulatedExchange;
  market: SyntheticMarket;
  instruments: ReadonlyMap<string, Instrument>;
  lease: MemoryLeaseStore;
  leaseAccount: string;
  leaseTtlMs: number;
  chaos: Chaos;
  journalPath: string;
  clientOidPrefix: string;
  /** The venue restarts and forgets every order resting on it. */
  forgetResting(): void;
  /** The daemon's process now (undefined before the first), which a crash or a freeze hits. */
  current(): { alive: boolean; holder: string; frozenUntilMs: number } | undefined;
  /** Kills the process now; it starts again after `downMs`. */
  kill(downMs: number): void;
  /** Arms a crash at a kill point. */
  arm(crash: Extract<Fault, { kind: 'crash' }>): void;
  /** Poll answers come twice until then. */
  duplicateUntil(ms: number): void;
}

export function applyFault(t: FaultTargets, f: Fault): void {
  const { faults, clock } = t;
  const now = clock.now();
  switch (f.kind) {
    case 'crash':
      return t.arm(f);
    case 'kill':
      return t.kill(f.downMs);
    case 'venue-restart':
      return t.forgetResting();
    case 'read-lag':
      faults.readLagMs = f.lagMs;
      clock.at(now + f.forMs, () => (faults.readLagMs = 0));
      return;
    case 'accept-then-500':
    case 'timeout-after-act':
    case 'left-out':
      faults.oneOff.push(f.kind);
      return;
    case 'storm-429':
      faults.stormUntilMs = Math.max(faults.stormUntilMs, now + f.forMs);
      return;
    case 'clock-skew':
      faults.skewUntilMs = Math.max(faults.skewUntilMs, now + f.forMs);
      return;
    case 'venue-down':
      faults.downUntilMs = Math.max(faults.downUntilMs, now + f.forMs);
      return;
    case 'reorder':
      faults.jitterMs = f.jitterMs;
      t.duplicateUntil(now + f.forMs);
      clock.at(now + f.forMs, () => (faults.jitterMs = 0));
      return;
    case 'lease-outage': {
      const p = t.current();
      if (p) t.lease.cut(p.holder, now + f.forMs);
      return;
    }
    case 'lease-takeover': {
      const p = t.current();
      if (p) p.frozenUntilMs = now + f.forMs;
      secondHolder(t, f, now + f.forMs + t.leaseTtlMs);
      return;
    }
    case 'price-gap': {
      const last = t.sim.engine.ticker(f.symbol)?.last;
      const inst = t.instruments.get(f.symbol)!;
      if (last) t.market.shift(f.symbol, Math.trunc((last.steps(inst.tickSize, 'down') * f.pct) / 100));
      return;
    }
    case 'strategy-throws':
      t.chaos.throwing.add(f.strategyId);
      return;
    case 'strategy-floods':
      t.chaos.flooding.add(f.strategyId);
      return;
  }
}

/** A second daemon asks for the lease every second until `giveUpMs`; granted, it fences the journal and holds it a while. */
function secondHolder(t: FaultTargets, f: Extract<Fault, { kind: 'lease-takeover' }>, giveUpMs: number): void {
  const { clock } = t;
  const store = t.lease.for(() => 'second-daemon');
  const holdMs = f.fenceAfterMs + f.holdMs;
  const ask = () => {
    void store.acquire(t.leaseAccount, 'second-daemon', holdMs + 1000).then((grant) => {
      if (!grant) {
        if (clock.now() + 1000 <= giveUpMs) clock.at(clock.now() + 1000, ask);
        return;
      }
      clock.at(clock.now() + f.fenceAfterMs, () => {
        const j = new SqliteJournal(t.journalPath, { clientOidPrefix: t.clientOidPrefix });
        try {
          j.fence(grant.token);
        } catch (err) {
          // A newer holder fenced the journal first (this one's grant had lapsed): it is the one fenced off.
          if (!(err instanceof JournalFencedError)) throw err;
        } finally {
          j.close();
        }
      });
      clock.at(clock.now() + holdMs, () => void store.release(t.leaseAccount, 'second-daemon', grant.token));
    });
  };
  clock.at(clock.now() + 1000, ask);
}

/**
 * Milliseconds within [a, b] (from the start) when the venue, the store or the daemon was out of reach: what the
 * invariants' bounds allow on top. The daemon's deaths as they happened (`outages`, each until a lease's time to live
 * after it was back); the lease's troubles until a time to live after they end.
 */
export function blockedMs(schedule: readonly Fault[], outages: ReadonlyArray<readonly [number, number]>, leaseTtlMs: number, a: number, b: number): number {
  let total = 0;
  const overlap = (from: number, to: number) => Math.max(0, Math.min(b, to) - Math.max(a, from));
  for (const f of schedule) {
    if (f.kind === 'price-gap' || f.kind === 'strategy-throws' || f.kind === 'strategy-floods' || f.kind === 'crash' || f.kind === 'kill') continue;
    total += overlap(f.atMs, faultEndMs(f) + (f.kind === 'lease-takeover' || f.kind === 'lease-outage' ? leaseTtlMs : 0));
  }
  for (const [from, to] of outages) total += overlap(from, to);
  return total;
}
