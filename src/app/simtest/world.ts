// One simulated run of the whole daemon: the real core (strategies, risk gate, executor, order tracker, stop manager,
// journal on a SQLite file, account lease, polls, reconciliation and schedules) in virtual time against the
// in-process venue behind its faults, under the run's fault schedule. Processes crash and start again on the same
// journal; a second daemon takes the lease; the venue forgets its orders. The invariants are checked at every second
// of virtual time and at the end. Nothing real is awaited, so a seed's run is the same every time.
import { createHash } from 'node:crypto';
import type { LoadedConfig } from '../../config/load.js';
import { Decimal } from '../../domain/decimal.js';
import { marginSettingsOf } from '../../domain/margin.js';
import type { Instrument } from '../../domain/market.js';
import { calmVenue, FaultClient, type VenueWrite } from '../../exchange/sim/fault-client.js';
import { DEFAULT_INSTRUMENTS } from '../../exchange/sim/instruments.js';
import { SyntheticMarket } from '../../exchange/sim/market.js';
import { SimulatedExchange } from '../../exchange/sim/simulated-exchange.js';
import type { KillHooks } from '../../execution/kill-points.js';
import { SqliteJournal } from '../../journal/sqlite-journal.js';
import type { StrategyDefinition } from '../../strategy/api.js';
import { VirtualClock } from '../../util/clock.js';
import { silentLogger } from '../../util/logger.js';
import { Prng, deriveSeed } from '../../util/prng.js';
import { AccountLease } from '../account-lease.js';
import { buildCore, type Core } from '../core.js';
import { Schedules } from '../cron.js';
import { riskLimits } from '../kernel.js';
import { noChaos, randomGenerator, withChaos } from './generators.js';
import { Checker, type PositionBound, type Violation } from './invariants.js';
import { MemoryLeaseStore } from './lease-store.js';
import { Crash, mortalJournal, ProcessClock, startPolls } from './process.js';
import { applyFault, blockedMs, type FaultTargets } from './faults.js';
import { drawSchedule, faultEndMs, type Fault } from './schedule.js';
import { SIM_ACCOUNTS, SIM_BOUNDS, SIM_SETTINGS } from './setup.js';

export interface RunOptions {
  seed: number;
  /** Virtual minutes at least (the run goes on until every fault has ended and the calm after it has passed). */
  minutes: number;
  /** The schedule to run instead of the seed's draw (a shrunk one). */
  schedule?: Fault[];
  loaded: LoadedConfig;
  /** The shipped strategies the run trades, loaded once (the random generators are made per run). */
  shipped: ReadonlyMap<string, StrategyDefinition<unknown>>;
  /** Where the run's journal file goes (default: the system's temp folder). */
  dir?: string;
}

export interface RunResult {
  seed: number;
  schedule: Fault[];
  violations: Violation[];
  /** A digest of every write that reached the venue (time, call, arguments) and of what broke: a replay gives the same. */
  digest: string;
  figures: { virtualMs: number; steps: number; processes: number; crashes: number; accepted: number; concluded: number };
}

/** Where every run's virtual time starts. */
export const SIM_START_MS = 1_750_000_000_000;
const LEASE_TTL_MS = 15_000;
const ACCOUNT = 'simulated-account';

interface Proc {
  n: number;
  alive: boolean;
  frozenUntilMs: number;
  clock: ProcessClock;
  raw?: SqliteJournal;
  core?: Core;
  holder: string;
  trading: boolean;
}

export class World {
  private readonly clock = new VirtualClock(SIM_START_MS);
  private readonly market: SyntheticMarket;
  private readonly sim: SimulatedExchange;
  private readonly faults = calmVenue();
  private readonly schedule: Fault[];
  private endMs: number;
  /** When the daemon was down, from the start: [from, to] (to: a lease's time to live after it was back). */
  private readonly outages: Array<[number, number]> = [];
  private readonly checker: Checker;
  private readonly watcher: SqliteJournal;
  private readonly lease: MemoryLeaseStore;
  private readonly chaos = noChaos();
  private readonly definitions: Map<string, StrategyDefinition<unknown>>;
  private readonly instruments: Map<string, Instrument>;
  private readonly venueRng: Prng;
  private readonly shared = { placedAt: new Map<string, number>(), forgotten: new Set<string>() };
  private current: Proc | undefined;
  private processes = 0;
  private crashes = 0;
  private accepted = 0;
  private steps = 0;
  /** The crash armed by the schedule: the n-th pass through its kill point from now on. */
  private armed: Extract<Fault, { kind: 'crash' }> | undefined;
  private seen = 0;
  private duplicateUntilMs = 0;
  private readonly startBalances: Map<string, Decimal>;
  private readonly trace = createHash('sha256');

  constructor(
    private readonly o: RunOptions,
    private readonly path: string,
  ) {
    const { seed } = o;
    this.market = new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed, startMs: SIM_START_MS, tickIntervalMs: 1000 });
    // Every final order and fill kept (the ledger is checked against all of them at the end).
    this.sim = new SimulatedExchange(this.market, SIM_ACCOUNTS, undefined, this.clock);
    this.startBalances = new Map(this.sim.engine.spotBalances().map((b) => [b.asset, b.total]));
    this.instruments = new Map([...this.sim.engine.instruments('spot'), ...this.sim.engine.instruments('futures')].map((i) => [i.symbol, i]));
    this.venueRng = new Prng(deriveSeed(seed, 'venue'));
    const cfg = o.loaded.config;
    const shape = {
      faultSpanMs: Math.round(o.minutes * 60_000 * 0.6),
      maxFaults: 8,
      symbols: [...this.instruments.keys()],
      strategyIds: cfg.strategies.map((s) => s.id),
    };
    this.schedule = o.schedule ?? drawSchedule(seed, shape);
    const lastEnd = Math.max(0, ...this.schedule.map(faultEndMs));
    this.endMs = SIM_START_MS + Math.max(o.minutes * 60_000, lastEnd + SIM_SETTINGS.calmMs);
    this.definitions = new Map<string, StrategyDefinition<unknown>>([...o.shipped].map(([name, def]) => [name, withChaos(def, this.chaos)]));
    this.definitions.set('random-intents', withChaos(randomGenerator(seed) as unknown as StrategyDefinition<unknown>, this.chaos));
    this.watcher = new SqliteJournal(path, { clientOidPrefix: SIM_SETTINGS.clientOidPrefix });
    this.lease = new MemoryLeaseStore(this.clock);
    const bounds: PositionBound[] = SIM_BOUNDS.map((b) => {
      const inst = this.instruments.get(b.symbol)!;
      return {
        ...b,
        max: Decimal.from(b.max),
        ...(inst.surface === 'spot' ? { spot: { asset: inst.base, start: this.startBalances.get(inst.base) ?? Decimal.ZERO } } : {}),
      };
    });
    this.checker = new Checker({
      sim: this.sim,
      // The handle of the process that trades (up to date with its own writes), else the run's own, read afresh.
      journal: () => this.current?.raw ?? (this.watcher.refresh(), this.watcher),
      boundMs: SIM_SETTINGS.boundMs,
      blockedMs: (a, b) => blockedMs(this.schedule, this.outages, LEASE_TTL_MS, a - SIM_START_MS, b - SIM_START_MS),
      bounds,
      unbound: () => this.chaos.flooded,
      clientOidPrefix: SIM_SETTINGS.clientOidPrefix,
    });
  }

  async run(): Promise<RunResult> {
    const { clock } = this;
    clock.every(SIM_START_MS + 1000, 1000, () => this.sim.advanceTo(clock.now()));
    clock.every(SIM_START_MS + 999, 1000, () => {
      this.steps++;
      this.checker.step(clock.now());
    });
    const targets = this.faultTargets();
    for (const f of this.schedule) clock.at(SIM_START_MS + f.atMs, () => applyFault(targets, f));
    this.spawn();
    try {
      while (this.checker.violations.length === 0 && clock.nextAt() <= this.endMs) {
        clock.runNext();
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      if (this.checker.violations.length === 0) this.finish();
    } finally {
      this.current?.raw?.close();
      this.watcher.close();
    }
    return {
      seed: this.o.seed,
      schedule: this.schedule,
      violations: this.checker.violations,
      digest: this.trace.update(JSON.stringify(this.checker.violations)).digest('hex').slice(0, 32),
      figures: {
        virtualMs: clock.now() - SIM_START_MS,
        steps: this.steps,
        processes: this.processes,
        crashes: this.crashes,
        accepted: this.accepted,
        concluded: this.checker.concluded,
      },
    };
  }

  /** What the schedule's faults act on. */
  private faultTargets(): FaultTargets {
    const { clock, faults, sim, market, instruments, lease, chaos } = this;
    return {
      clock,
      faults,
      sim,
      market,
      instruments,
      lease,
      chaos,
      leaseAccount: ACCOUNT,
      leaseTtlMs: LEASE_TTL_MS,
      journalPath: this.path,
      clientOidPrefix: SIM_SETTINGS.clientOidPrefix,
      forgetResting: () => void new FaultClient({ sim, faults, time: clock, rng: this.venueRng, alive: () => true }, this.shared).forgetResting(),
      current: () => this.current,
      kill: (downMs) => {
        if (!this.current?.alive) return;
        this.crashes++;
        this.die(this.current, downMs);
      },
      arm: (crash) => {
        this.armed = crash;
        this.seen = 0;
      },
      duplicateUntil: (ms) => void (this.duplicateUntilMs = ms),
    };
  }

  thrown(err: unknown): void {
    this.checker.fail('needs-person', this.clock.now(), `the daemon threw out of a handler (its process would end): ${(err as Error).stack ?? String(err)}`);
  }

  /** The end: the operator clears what a command clears; then nothing may be left waiting. */
  private finish(): void {
    const now = this.clock.now();
    const p = this.current;
    if (!p?.alive || !p.trading || !p.core) {
      this.checker.fail(
        'needs-person',
        now,
        `no daemon trades at the end (process ${p?.n ?? 'none'} ${p?.alive ? 'waits for the lease or its start' : 'is down'})`,
      );
    } else {
      const { core } = p;
      if (core.executor.fenced !== null) this.checker.fail('needs-person', now, `trading still fenced at the end: ${core.executor.fenced}`);
      if (core.risk.state() !== 'active') core.risk.reset();
      if (core.risk.state() !== 'active') this.checker.fail('needs-person', now, `the trading state stays ${core.risk.state()} after the reset command`);
    }
    this.checker.end(now);
    for (const [asset, moved] of this.checker.spotDelta) {
      const have = this.sim.engine.spotBalances().find((b) => b.asset === asset)?.total ?? Decimal.ZERO;
      const want = (this.startBalances.get(asset) ?? Decimal.ZERO).add(moved);
      if (!have.eq(want)) this.checker.fail('ledger', now, `spot ${asset}: the venue holds ${have.toString()}, the journal's fills make it ${want.toString()}`);
    }
  }

  /** Starts a new process of the daemon on the journal; any failure to start is a state that needs a person. */
  private spawn(): void {
    const proc: Proc = { n: ++this.processes, alive: true, frozenUntilMs: 0, clock: undefined as unknown as ProcessClock, holder: '', trading: false };
    proc.clock = new ProcessClock(this.clock, proc);
    this.current = proc;
    this.start(proc).catch((err: unknown) => {
      if (err instanceof Crash || !proc.alive) return;
      this.checker.fail('needs-person', this.clock.now(), `process ${proc.n} failed to start: ${(err as Error).stack ?? String(err)}`);
    });
  }

  private async start(p: Proc): Promise<void> {
    const cfg = this.o.loaded.config;
    const raw = new SqliteJournal(this.path, { clientOidPrefix: SIM_SETTINGS.clientOidPrefix });
    p.raw = raw;
    this.checker.countRows(this.clock.now());
    const journal = mortalJournal(raw, p);
    const lease = new AccountLease({
      store: this.lease.for(() => p.holder),
      account: ACCOUNT,
      holder: `daemon-${p.n}`,
      ttlMs: LEASE_TTL_MS,
      clock: p.clock,
      logger: silentLogger,
    });
    p.holder = lease.holder;
    const token = await lease.take(new Promise(() => undefined));
    if (token === undefined || !p.alive) return;
    journal.fence(token);
    lease.keep(() => this.leaseLost(p));
    const fc = new FaultClient(
      {
        sim: this.sim,
        faults: this.faults,
        time: this.clock,
        rng: this.venueRng,
        alive: () => p.alive,
        deliver: (fn) => p.clock.run(fn),
        writesAllowed: () => lease.held(),
        onCall: (w) => this.checkLease(p, w),
        onArrive: (w) => this.trace.update(`${w.atMs} ${p.n} ${w.method} ${JSON.stringify(w.args)}\n`),
        onAccepted: (clientOid, orderId) => {
          this.accepted++;
          this.checker.accept(clientOid, orderId, this.clock.now());
        },
      },
      this.shared,
    );
    const hooks: KillHooks = { at: (point) => this.killPoint(p, point) };
    const core = await buildCore({
      instruments: this.instruments,
      bind: (symbols) => ({
        trading: fc.client,
        streams: startPolls(p.clock, {
          client: fc.client,
          periods: cfg.daemon.polls,
          spot: symbols.spot,
          futures: symbols.futures,
          duplicate: () => (this.clock.now() < this.duplicateUntilMs ? 1 + this.venueRng.below(3000) : 0),
        }),
      }),
      journal,
      clock: p.clock,
      logger: silentLogger,
      limits: riskLimits(this.o.loaded),
      margin: marginSettingsOf(cfg.exchange.margin),
      tracking: cfg.execution,
      strategies: {
        instances: cfg.strategies,
        dirs: [],
        maxErrors: cfg.daemon.maxStrategyErrors,
        store: { load: (id) => journal.strategyState(id), save: (id, json) => journal.saveStrategyState(id, json, p.clock.now()) },
        ...(cfg.daemon.restartFaultedAfterMs ? { restartFaultedAfterMs: cfg.daemon.restartFaultedAfterMs } : {}),
      },
      definitions: this.definitions,
      fencedUntilReconciled: true,
      capsCountListed: true,
      hooks,
    });
    p.core = core;
    await core.reconcile({ scanForeign: true, startup: true });
    if (!p.alive || !lease.held()) return;
    core.start(new Schedules(p.clock, silentLogger), cfg.daemon.reconcileCron, cfg.strategies);
    p.trading = true;
  }

  /** The daemon's lease is lost: intake closes, writes in flight drain (8 s at most), the process ends; it starts again. */
  private leaseLost(p: Proc): void {
    p.core?.stopIntake();
    const inFlight = [...(p.core?.inFlight ?? [])];
    void Promise.race([Promise.allSettled(inFlight), p.clock.sleep(8000)]).then(() => {
      if (!p.alive) return;
      this.die(p, 1000);
    });
  }

  private die(p: Proc, downMs: number): void {
    if (!p.alive) return;
    p.alive = false;
    p.trading = false;
    // Down from now (a crash armed earlier may come late): the bounds allow for it, and the calm follows it.
    const now = this.clock.now();
    this.outages.push([now - SIM_START_MS, now + downMs + LEASE_TTL_MS - SIM_START_MS]);
    this.endMs = Math.max(this.endMs, now + downMs + SIM_SETTINGS.calmMs);
    this.clock.at(this.clock.now() + downMs, () => {
      p.raw?.close();
      p.raw = undefined;
      if (this.current === p) this.spawn();
    });
  }

  private killPoint(p: Proc, point: string): void {
    if (!p.alive) throw new Crash(point);
    const c = this.armed;
    if (!c || c.point !== point || ++this.seen < c.nth) return;
    this.armed = undefined;
    this.crashes++;
    this.die(p, c.downMs);
    throw new Crash(point);
  }

  /** A write from process `p` reached the client: the store must say `p` holds the lease. */
  private checkLease(p: Proc, w: VenueWrite): void {
    const h = this.lease.holderNow();
    if (h?.holder === p.holder) return;
    const who = h ? (h.holder === 'second-daemon' ? 'a second daemon' : `another process (${h.holder.split(':')[0]})`) : 'nobody';
    this.checker.fail('lease', w.atMs, `process ${p.n} sent ${w.endpoint} (${w.method}) while ${who} held the lease`);
  }
}
