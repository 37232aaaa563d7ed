// Market sources for the simulator: a seeded synthetic price process (random walk in integer ticks with
// volatility regimes and jumps, a spread, public trades with sizes, and a seeded past before its start) or a
// replay of recorded ticks. Prices are integer ticks and sizes integer steps of the instrument; the same seed gives
// the same market.
import { Decimal } from '../../domain/decimal.js';
import { Prng, deriveSeed } from './prng.js';
import type { SimInstrumentSpec } from './instruments.js';
import type { ReplayRecord } from '../../domain/replay-record.js';
import { SyntheticPast } from './synthetic-past.js';

/** The state of one symbol's market after its latest tick; updated in place (no allocation per tick). */
export class SymbolMarket {
  ts = 0;
  bid = 0;
  ask = 0;
  /** Price and size of the latest public trade; buyerMaker true when the aggressor sold (trade at the bid). */
  last = 0;
  tradeSize = 0;
  buyerMaker = false;
  /** Size resting at the best bid/ask, in steps (what a taker can fill at that level). */
  topSize = 0;
  /** Count of ticks seen. */
  ticks = 0;
  /**
   * Mark and index price of the tick in ticks, when the data gives them (a replay that recorded them); 0: absent,
   * the simulator's mark model derives them from the last price (mark-model.ts).
   */
  markTicks = 0;
  indexTicks = 0;
  /** Candle history before the first tick (a synthetic market's seeded past); null for a replay. */
  past: SyntheticPast | null = null;
  constructor(
    readonly index: number,
    readonly spec: SimInstrumentSpec,
    readonly tickSize: Decimal,
    readonly stepSize: Decimal,
  ) {}
}

/** A replayed record may carry the contract's mark and index price as the venue showed them. */
export interface RecordedPrices {
  mark?: string;
  index?: string;
}

export interface MarketSource {
  readonly symbols: SymbolMarket[];
  /** Emits every tick up to and including `ts`, in time order. */
  advanceTo(ts: number, onTick: (m: SymbolMarket) => void): void;
  /** Time of the latest tick emitted. */
  readonly now: number;
  /** The seed of a synthetic market (what else the simulator derives, like funding rates, follows it too). */
  readonly seed?: number;
}

function ticksOf(price: Decimal, tick: Decimal): number {
  return price.steps(tick, 'half-up');
}

function symbolMarkets(specs: SimInstrumentSpec[]): SymbolMarket[] {
  return specs.map((s, i) => new SymbolMarket(i, s, Decimal.of(BigInt(s.priceEndStep), s.priceDecimals), Decimal.of(1n, s.sizeDecimals)));
}

export interface SyntheticMarketOptions {
  seed: number;
  startMs: number;
  tickIntervalMs: number;
}

/** Random walk with calm/active regimes and rare jumps, per symbol, each from its own PRNG stream. */
export class SyntheticMarket implements MarketSource {
  readonly symbols: SymbolMarket[];
  private readonly rng: Prng[];
  private readonly mid: number[];
  private readonly regime: number[];
  private readonly minSteps: number[];
  now: number;

  constructor(
    specs: SimInstrumentSpec[],
    private readonly opts: SyntheticMarketOptions,
  ) {
    this.symbols = symbolMarkets(specs);
    this.rng = specs.map((s) => new Prng(deriveSeed(opts.seed, s.symbol)));
    this.mid = this.symbols.map((m) => ticksOf(Decimal.from(m.spec.startPrice), m.tickSize));
    this.regime = specs.map(() => 1);
    this.minSteps = this.symbols.map((m) => Math.max(1, Decimal.from(m.spec.minSize).steps(m.stepSize, 'up')));
    this.now = opts.startMs;
    for (const m of this.symbols) {
      this.tick(m, opts.startMs);
      m.past = new SyntheticPast({
        seed: opts.seed, symbol: m.spec.symbol, startMs: opts.startMs, firstTicks: m.last, volBps: m.spec.volBps,
        ticksPerMinute: Math.max(1, Math.round(60_000 / opts.tickIntervalMs)), minSteps: this.minSteps[m.index]!,
      });
    }
  }

  get seed(): number {
    return this.opts.seed;
  }

  advanceTo(ts: number, onTick: (m: SymbolMarket) => void): void {
    const step = this.opts.tickIntervalMs;
    while (this.now + step <= ts) {
      this.now += step;
      for (const m of this.symbols) {
        this.tick(m, this.now);
        onTick(m);
      }
    }
  }

  /** Moves a symbol's price by `ticks` from its next tick on (a scripted jump, for tests and scenarios). */
  shift(symbol: string, ticks: number): void {
    const m = this.symbols.find((x) => x.spec.symbol === symbol);
    if (!m) throw new RangeError(`unknown symbol ${symbol}`);
    this.mid[m.index] = Math.max(10, this.mid[m.index]! + ticks);
  }

  private tick(m: SymbolMarket, ts: number): void {
    const i = m.index;
    const r = this.rng[i]!;
    // Regime: calm (1) or active (3), switching rarely.
    if (r.chancePpm(200)) this.regime[i] = this.regime[i] === 1 ? 3 : 1;
    const mid = this.mid[i]!;
    const vol = Math.max(1, Math.floor((mid * m.spec.volBps * this.regime[i]!) / 10_000));
    // Irwin-Hall: the sum of four uniforms, centred: roughly normal with unit variance.
    const z = ((r.u32() + r.u32() + r.u32() + r.u32()) / 4294967296 - 2) * 1.7320508075688772;
    let move = Math.round(z * vol);
    if (r.chancePpm(50)) move += (r.below(2) === 0 ? -1 : 1) * vol * (10 + r.below(20));
    let next = mid + move;
    if (next < 10) next = 10;
    this.mid[i] = next;
    const spread = 1 + (r.chancePpm(100_000) ? r.below(4) : 0);
    m.ts = ts;
    m.bid = next;
    m.ask = next + spread;
    m.buyerMaker = r.below(2) === 0;
    m.last = m.buyerMaker ? m.bid : m.ask;
    const min = this.minSteps[i]!;
    m.tradeSize = min * (1 + r.below(500));
    m.topSize = min * (1000 + r.below(10_000));
    m.ticks++;
  }
}

/**
 * Replays recorded trades (sorted by time) through the same interface. Records are turned into integer ticks
 * and steps once, when they arrive, into flat columns: replaying one is a few assignments, no parsing.
 */
export class ReplayMarket implements MarketSource {
  readonly symbols: SymbolMarket[];
  private readonly bySymbol = new Map<string, SymbolMarket>();
  private readonly sym: number[] = [];
  private readonly ts: number[] = [];
  private readonly last: number[] = [];
  private readonly bid: number[] = [];
  private readonly ask: number[] = [];
  private readonly size: number[] = [];
  private readonly maker: boolean[] = [];
  /** Recorded mark and index in ticks (0: not recorded); created when the first record carrying them arrives. */
  private mark: number[] | null = null;
  private index: number[] | null = null;
  private next = 0;
  now: number;

  constructor(specs: SimInstrumentSpec[], records: ReplayRecord[] = []) {
    this.symbols = symbolMarkets(specs);
    for (const m of this.symbols) this.bySymbol.set(m.spec.symbol, m);
    for (let i = 1; i < records.length; i++) {
      if (records[i]!.ts < records[i - 1]!.ts) throw new RangeError(`replay records out of time order at #${i}`);
    }
    for (const r of records) this.add(r);
    this.now = 0;
    if (records.length) this.begin();
  }

  /**
   * Takes the records added so far as the replay: in time order (a stable sort: records of one instant keep the
   * order they came in), every symbol's book seeded with its first record so it is never empty (the record
   * itself is replayed, as a trade, when time reaches it).
   */
  begin(): void {
    const n = this.ts.length;
    let sorted = true;
    for (let i = 1; i < n && sorted; i++) sorted = this.ts[i - 1]! <= this.ts[i]!;
    if (!sorted) {
      const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => this.ts[a]! - this.ts[b]! || a - b);
      for (const col of [this.sym, this.ts, this.last, this.bid, this.ask, this.size, this.maker, this.mark ?? [], this.index ?? []] as unknown[][]) {
        if (col.length === 0) continue;
        const copy = col.slice();
        for (let i = 0; i < n; i++) col[i] = copy[order[i]!];
      }
    }
    this.next = 0;
    this.now = this.ts[0] ?? 0;
    const seeded = new Set<number>();
    for (let i = 0; i < n && seeded.size < this.symbols.length; i++) {
      const k = this.sym[i]!;
      if (seeded.has(k)) continue;
      seeded.add(k);
      this.apply(this.symbols[k]!, i);
      this.symbols[k]!.ticks = 0;
    }
  }

  /** Records held (replayed or not). */
  get length(): number {
    return this.ts.length;
  }

  /** Time of the last record held (NaN when none). */
  get lastTs(): number {
    return this.ts.length ? this.ts[this.ts.length - 1]! : Number.NaN;
  }

  /** Time of the next record to replay (Infinity when all are replayed). */
  get nextTs(): number {
    return this.next < this.ts.length ? this.ts[this.next]! : Number.POSITIVE_INFINITY;
  }

  advanceTo(ts: number, onTick: (m: SymbolMarket) => void): void {
    while (this.next < this.ts.length && this.ts[this.next]! <= ts) {
      const i = this.next++;
      const m = this.symbols[this.sym[i]!]!;
      this.apply(m, i);
      this.now = this.ts[i]!;
      onTick(m);
    }
    if (ts > this.now) this.now = ts;
  }

  get done(): boolean {
    return this.next >= this.ts.length;
  }

  /** Records replayed so far. */
  get replayed(): number {
    return this.next;
  }

  /** Adds records as they arrive (dry-run: polled live data); they must not go back in time. */
  append(records: ReplayRecord[]): void {
    for (const r of records) {
      const lastTs = this.ts[this.ts.length - 1];
      if (lastTs !== undefined && r.ts < lastTs) continue; // a late sample is dropped, not replayed out of order
      this.add(r);
    }
  }

  /** Parses a record into the columns; records of symbols the market does not trade are skipped. */
  add(rec: ReplayRecord & RecordedPrices): void {
    const m = this.bySymbol.get(rec.symbol);
    if (!m) return;
    const last = Decimal.stepsOf(rec.price, m.tickSize);
    const maker = rec.buyerMaker ?? false;
    this.sym.push(m.index);
    this.ts.push(rec.ts);
    this.last.push(last);
    this.bid.push(rec.bid ? Decimal.stepsOf(rec.bid, m.tickSize) : maker ? last : last - 1);
    this.ask.push(rec.ask ? Decimal.stepsOf(rec.ask, m.tickSize) : maker ? last + 1 : last);
    this.size.push(Math.max(1, Decimal.stepsOf(rec.size, m.stepSize)));
    this.maker.push(maker);
    if (rec.mark || this.mark) (this.mark ??= new Array<number>(this.ts.length - 1).fill(0)).push(rec.mark ? Decimal.stepsOf(rec.mark, m.tickSize) : 0);
    if (rec.index || this.index) (this.index ??= new Array<number>(this.ts.length - 1).fill(0)).push(rec.index ? Decimal.stepsOf(rec.index, m.tickSize) : 0);
  }

  private apply(m: SymbolMarket, i: number): void {
    m.ts = this.ts[i]!;
    m.last = this.last[i]!;
    m.buyerMaker = this.maker[i]!;
    m.bid = this.bid[i]!;
    m.ask = this.ask[i]!;
    m.tradeSize = this.size[i]!;
    m.topSize = m.tradeSize * 10;
    if (this.mark) m.markTicks = this.mark[i]!;
    if (this.index) m.indexTicks = this.index[i]!;
    m.ticks++;
  }
}
