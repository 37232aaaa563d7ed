// How a live session differs from the simulator's run of the same market: each live order paired with its simulated
// twin (same strategy, symbol, side, kind, price and size, placed within a window of each other), what each side's
// fills were, the PnL of each side over time and the gap between them, and the causes of the differences named and
// counted. Pure: the orders and fills come in as data (from two journals), the report goes out as data (the page of it:
// divergence-page.ts).
import { Decimal } from '../domain/decimal.js';
import { UNCONFIRMED_STATES } from '../domain/order-lifecycle.js';
import { moneyText } from './html-tables.js';

/** One order as a journal holds it, and its fills (oldest first). */
export interface DivergenceOrder {
  clientOid: string;
  strategyId: string;
  symbol: string;
  side: 'buy' | 'sell';
  kind: 'limit' | 'market';
  timeInForce: string;
  price: string | null;
  size: string;
  isTrigger: boolean;
  triggerPrice: string | null;
  /** When the order was written, just before it was sent. */
  createdAtMs: number;
  state: string;
  /** Why the venue refused it, or what went wrong last (null: nothing). */
  error: string | null;
  /**
   * Its requests' flights [sent, answered] (the placement, each cancel), as its journal saw them: how long the venue
   * took to hear of each (at most). Absent: not known (a simulated side's are its configured latency).
   */
  flights?: ReadonlyArray<readonly [number, number]>;
  fills: ReadonlyArray<{ price: string; size: string; fee: string; atMs: number }>;
}

/** What made a pair (or a lone order) differ; `none` when both sides agree. */
export type DivergenceCause = 'none' | 'unsettled' | 'latency' | 'queue' | 'partial-fills' | 'data-gaps' | 'decision';

/** Why each cause is named: one sentence a trader reads beside the count. */
export const CAUSE_TEXT: Record<DivergenceCause, string> = {
  none: 'both sides filled the same size at the same price within the time tolerance (or neither filled)',
  unsettled: 'one side was still finding out what became of it (an unanswered order or cancel) when the span ended',
  latency:
    'the two orders reached their venues far enough apart for the market to move in between (or, on one side only, the strategy saw its orders answered at another time and decided otherwise)',
  queue: 'placed together, one filled and the other did not (or later): the place in the queue, or the fill model',
  'partial-fills': 'both filled, but not the same size',
  'data-gaps': 'the simulated market had no data for a while in the order’s life: it could not fill as the venue did',
  decision: 'an order on one side only, with the same data and the same latency: the strategy saw something else (a fill, a price) and decided otherwise',
};

export interface DivergenceOptions {
  /** Orders of the two sides this far apart or nearer can be twins (ms). */
  pairWindowMs: number;
  /** Two fills this near in time are the same fill (ms); two arrivals this near are the same moment. */
  timeToleranceMs: number;
  /** The simulated side's orders reach its venue this long after they are written (ms: half its configured round trip). */
  simArrivalMs: number;
  /** Two orders whose arrivals at their venues are this near reached them at the same moment (ms). */
  arrivalToleranceMs: number;
  /** Stretches without simulated market data at least this long count as gaps (ms; `gaps` is made with it). */
  gapMs: number;
  /** Per symbol, the stretches [fromMs, toMs) the simulated market lacked data in. */
  gaps: ReadonlyMap<string, ReadonlyArray<readonly [number, number]>>;
  /** The PnL series' spacing (ms). */
  sampleMs: number;
}

/** One side of a pair: filled size, average price, fees and the first fill's time. */
export interface SideOutcome {
  clientOid: string;
  createdAtMs: number;
  state: string;
  error: string | null;
  /** Its requests [sent, answered] (the placement, then each cancel), where its journal knows them. */
  requests: Array<[number, number]>;
  filledSize: string;
  avgPrice: string | null;
  fees: string;
  firstFillMs: number | null;
}

export interface DivergencePair {
  strategyId: string;
  symbol: string;
  side: 'buy' | 'sell';
  kind: 'limit' | 'market';
  price: string | null;
  size: string;
  live: SideOutcome;
  sim: SideOutcome;
  /** sim − live: average fill price, fees, first fill time (null unless both filled). */
  priceDiff: string | null;
  feeDiff: string;
  fillTimeDiffMs: number | null;
  cause: DivergenceCause;
}

export interface DivergenceReport {
  /** The span compared: orders written in it, fills made in it. */
  window: { fromMs: number; toMs: number };
  live: { source: string; orders: number; fills: number };
  sim: { source: string; orders: number; fills: number; latencyMs: number; fillModel: string };
  options: Omit<DivergenceOptions, 'gaps'>;
  summary: {
    paired: number;
    /** Pairs whose fills agree (cause `none`). */
    matched: number;
    liveOnly: number;
    simOnly: number;
    /** Every cause with a count, most orders first; its sentence and the money it moved (|live − sim| fill value). */
    causes: Array<{ cause: DivergenceCause; orders: number; money: string; why: string }>;
    /** The strategies' PnL on each side at the end (fills marked at each side's last fill price per symbol). */
    livePnl: string;
    simPnl: string;
  };
  pairs: DivergencePair[];
  liveOnly: SideOutcome[];
  simOnly: SideOutcome[];
  pnl: Array<{ atMs: number; live: string; sim: string; gap: string }>;
}

const key = (o: DivergenceOrder) =>
  [
    o.strategyId,
    o.symbol,
    o.side,
    o.kind,
    o.price === null ? '' : Decimal.from(o.price).toString(),
    Decimal.from(o.size).toString(),
    o.isTrigger ? 'T' : '',
    o.triggerPrice ?? '',
  ].join('|');

function outcome(o: DivergenceOrder): SideOutcome {
  let filled = Decimal.ZERO;
  let value = Decimal.ZERO;
  let fees = Decimal.ZERO;
  for (const f of o.fills) {
    const size = Decimal.from(f.size);
    filled = filled.add(size);
    value = value.add(size.mul(Decimal.from(f.price)));
    fees = fees.add(Decimal.from(f.fee));
  }
  return {
    clientOid: o.clientOid,
    createdAtMs: o.createdAtMs,
    state: o.state,
    error: o.error,
    requests: (o.flights ?? []).map(([sent, answered]): [number, number] => [sent, answered]),
    filledSize: filled.toString(),
    avgPrice: filled.isZero() ? null : value.div(filled, 12).toString(),
    fees: fees.toString(),
    firstFillMs: o.fills[0]?.atMs ?? null,
  };
}

/** Pairs each live order with the nearest-in-time unpaired simulated order of the same key within the window. */
function pairUp(live: readonly DivergenceOrder[], sim: readonly DivergenceOrder[], windowMs: number) {
  const byKey = new Map<string, DivergenceOrder[]>();
  for (const o of [...sim].sort((a, b) => a.createdAtMs - b.createdAtMs)) {
    const k = key(o);
    byKey.set(k, [...(byKey.get(k) ?? []), o]);
  }
  const pairs: Array<[DivergenceOrder, DivergenceOrder]> = [];
  const liveOnly: DivergenceOrder[] = [];
  for (const o of [...live].sort((a, b) => a.createdAtMs - b.createdAtMs)) {
    const candidates = byKey.get(key(o)) ?? [];
    let best = -1;
    for (let i = 0; i < candidates.length; i++) {
      const d = Math.abs(candidates[i]!.createdAtMs - o.createdAtMs);
      if (d <= windowMs && (best < 0 || d < Math.abs(candidates[best]!.createdAtMs - o.createdAtMs))) best = i;
    }
    if (best < 0) liveOnly.push(o);
    else pairs.push([o, candidates.splice(best, 1)[0]!]);
  }
  return { pairs, liveOnly, simOnly: [...byKey.values()].flat() };
}

function inGap(opts: DivergenceOptions, symbol: string, fromMs: number, toMs: number): boolean {
  return (opts.gaps.get(symbol) ?? []).some(([a, b]) => a < toMs && b > fromMs);
}

/** States whose outcome is still being found out: a pair in one is not judged on its fills. */
const UNSETTLED: ReadonlySet<string> = new Set([...UNCONFIRMED_STATES, 'canceling']);

/** When each of an order's requests (its placement, then each cancel) reached its venue: half way through its flight. */
function arrivals(o: DivergenceOrder): number[] {
  return (o.flights ?? []).map(([sent, answered]) => sent + (answered - sent) / 2);
}

/**
 * Whether the twins' requests reached their venues apart: request by request (the placement, then each cancel both
 * sent) from their journals' flights; where a side's flights are not known, its order's writing time (plus the
 * simulated side's configured one-way latency).
 */
function arrivedApart(live: DivergenceOrder, sim: DivergenceOrder, opts: DivergenceOptions): boolean {
  const a = arrivals(live);
  const b = arrivals(sim);
  if (a.length === 0 || b.length === 0) return Math.abs(sim.createdAtMs + opts.simArrivalMs - live.createdAtMs) > opts.arrivalToleranceMs;
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (Math.abs(a[i]! - b[i]!) > opts.arrivalToleranceMs) return true;
  return false;
}

/**
 * The one cause of a pair's difference (checked in this order: the first that explains it). Both filled alike (or
 * neither, and neither refused while the other was not): none. Latency: their requests reached their venues apart.
 */
function causeOf(live: SideOutcome, sim: SideOutcome, pair: readonly [DivergenceOrder, DivergenceOrder], opts: DivergenceOptions): DivergenceCause {
  const liveFilled = Decimal.from(live.filledSize);
  const simFilled = Decimal.from(sim.filledSize);
  const samePrice =
    live.avgPrice === sim.avgPrice || (live.avgPrice !== null && sim.avgPrice !== null && Decimal.from(live.avgPrice).eq(Decimal.from(sim.avgPrice)));
  const sameTime = live.firstFillMs === null || sim.firstFillMs === null || Math.abs(live.firstFillMs - sim.firstFillMs) <= opts.timeToleranceMs;
  const sameRefusal = (live.state === 'rejected') === (sim.state === 'rejected');
  if (liveFilled.eq(simFilled) && samePrice && sameTime && sameRefusal) return 'none';
  if (UNSETTLED.has(live.state) || UNSETTLED.has(sim.state)) return 'unsettled';
  const end = Math.max(live.firstFillMs ?? live.createdAtMs, sim.firstFillMs ?? sim.createdAtMs, live.createdAtMs + opts.pairWindowMs);
  if (inGap(opts, pair[0].symbol, Math.min(live.createdAtMs, sim.createdAtMs), end)) return 'data-gaps';
  if (arrivedApart(pair[0], pair[1], opts)) return 'latency';
  if (!liveFilled.isZero() && !simFilled.isZero() && !liveFilled.eq(simFilled)) return 'partial-fills';
  return 'queue';
}

/**
 * Why an order has no twin: the market data missing around it; else the sides' latencies, which make a strategy see
 * its orders answered (and filled) at other times; else its decision alone.
 */
function loneCause(o: DivergenceOrder, opts: DivergenceOptions): DivergenceCause {
  if (inGap(opts, o.symbol, o.createdAtMs - opts.pairWindowMs, o.createdAtMs + opts.pairWindowMs)) return 'data-gaps';
  return opts.simArrivalMs > opts.arrivalToleranceMs ? 'latency' : 'decision';
}

/** At most this many points in the PnL series: a long session's samples are spaced further apart. */
const MAX_PNL_POINTS = 1000;

/**
 * One side's PnL as its fills come in: cash from fills (bought value out, sold value in, fees off) plus what is held,
 * marked at the side's last fill price per symbol.
 */
class SidePnl {
  private cash = Decimal.ZERO;
  private readonly held = new Map<string, { position: Decimal; last: Decimal }>();

  take(symbol: string, side: 'buy' | 'sell', fill: { price: string; size: string; fee: string }): void {
    const size = Decimal.from(fill.size);
    const price = Decimal.from(fill.price);
    const value = size.mul(price);
    this.cash = (side === 'buy' ? this.cash.sub(value) : this.cash.add(value)).sub(Decimal.from(fill.fee));
    const position = this.held.get(symbol)?.position ?? Decimal.ZERO;
    this.held.set(symbol, { position: side === 'buy' ? position.add(size) : position.sub(size), last: price });
  }

  value(): Decimal {
    let v = this.cash;
    for (const h of this.held.values()) v = v.add(h.position.mul(h.last));
    return v;
  }
}

/** Both sides' PnL at every sample from the first order to the last event: one pass over the fills in time order. */
function pnlSeries(live: readonly DivergenceOrder[], sim: readonly DivergenceOrder[], sampleMs: number): DivergenceReport['pnl'] {
  const events = [...live.map((o) => [o, 0] as const), ...sim.map((o) => [o, 1] as const)].flatMap(([o, sideIndex]) =>
    o.fills.map((fill) => ({ atMs: fill.atMs, sideIndex, symbol: o.symbol, side: o.side, fill })),
  );
  events.sort((x, y) => x.atMs - y.atMs);
  const created = [...live, ...sim].map((o) => o.createdAtMs);
  if (created.length === 0) return [];
  const from = created.reduce((a, b) => Math.min(a, b));
  const to = Math.max(
    created.reduce((a, b) => Math.max(a, b)),
    events.at(-1)?.atMs ?? -Infinity,
  );
  const step = Math.max(sampleMs, Math.ceil((to - from) / MAX_PNL_POINTS));
  const sides = [new SidePnl(), new SidePnl()] as const;
  const out: DivergenceReport['pnl'] = [];
  let next = 0;
  for (let t = from; ; t += step) {
    const at = Math.min(t, to);
    for (; next < events.length && events[next]!.atMs <= at; next++) {
      const e = events[next]!;
      sides[e.sideIndex].take(e.symbol, e.side, e.fill);
    }
    const l = sides[0].value();
    const s = sides[1].value();
    out.push({ atMs: at, live: l.toString(), sim: s.toString(), gap: s.sub(l).toString() });
    if (at === to) return out;
  }
}

/** The money a pair's difference moved: the difference of its two sides' fill values. */
function moneyMoved(live: SideOutcome, sim: SideOutcome): Decimal {
  const value = (s: SideOutcome) => (s.avgPrice ? Decimal.from(s.avgPrice).mul(Decimal.from(s.filledSize)) : Decimal.ZERO);
  return value(sim).sub(value(live)).abs();
}

/** Pairs the live orders with the simulated ones and names why they differ. */
export function divergence(
  window: { fromMs: number; toMs: number },
  live: { source: string; orders: readonly DivergenceOrder[] },
  sim: { source: string; orders: readonly DivergenceOrder[]; fillModel: string; latencyMs: number },
  opts: DivergenceOptions,
): DivergenceReport {
  const { pairs, liveOnly, simOnly } = pairUp(live.orders, sim.orders, opts.pairWindowMs);
  const counts = new Map<DivergenceCause, { orders: number; money: Decimal }>();
  const count = (cause: DivergenceCause, money: Decimal) => {
    const c = counts.get(cause) ?? { orders: 0, money: Decimal.ZERO };
    counts.set(cause, { orders: c.orders + 1, money: c.money.add(money) });
  };
  const pairRows = pairs.map(([l, s]): DivergencePair => {
    const lo = outcome(l);
    const so = outcome(s);
    const cause = causeOf(lo, so, [l, s], opts);
    count(cause, moneyMoved(lo, so));
    return {
      strategyId: l.strategyId,
      symbol: l.symbol,
      side: l.side,
      kind: l.kind,
      price: l.price,
      size: l.size,
      live: lo,
      sim: so,
      priceDiff: lo.avgPrice && so.avgPrice ? Decimal.from(so.avgPrice).sub(Decimal.from(lo.avgPrice)).toString() : null,
      feeDiff: Decimal.from(so.fees).sub(Decimal.from(lo.fees)).toString(),
      fillTimeDiffMs: lo.firstFillMs !== null && so.firstFillMs !== null ? so.firstFillMs - lo.firstFillMs : null,
      cause,
    };
  });
  for (const o of [...liveOnly, ...simOnly]) {
    const out = outcome(o);
    count(loneCause(o, opts), moneyMoved(out, { ...out, filledSize: '0', avgPrice: null }));
  }
  const pnl = pnlSeries(live.orders, sim.orders, opts.sampleMs);
  const fills = (orders: readonly DivergenceOrder[]) => orders.reduce((n, o) => n + o.fills.length, 0);
  const { gaps: _gaps, ...shown } = opts;
  return {
    window,
    live: { source: live.source, orders: live.orders.length, fills: fills(live.orders) },
    sim: { source: sim.source, orders: sim.orders.length, fills: fills(sim.orders), latencyMs: sim.latencyMs, fillModel: sim.fillModel },
    options: shown,
    summary: {
      paired: pairs.length,
      matched: pairRows.filter((p) => p.cause === 'none').length,
      liveOnly: liveOnly.length,
      simOnly: simOnly.length,
      causes: [...counts.entries()]
        .filter(([cause]) => cause !== 'none')
        .map(([cause, c]) => ({ cause, orders: c.orders, money: c.money.toString(), why: CAUSE_TEXT[cause] }))
        .sort((a, b) => b.orders - a.orders || Decimal.from(b.money).cmp(Decimal.from(a.money))),
      livePnl: pnl.at(-1)?.live ?? '0',
      simPnl: pnl.at(-1)?.sim ?? '0',
    },
    pairs: pairRows,
    liveOnly: liveOnly.map(outcome),
    simOnly: simOnly.map(outcome),
    pnl,
  };
}

/** The report's summary in lines for a terminal. */
export function divergenceSummary(r: DivergenceReport): string[] {
  const s = r.summary;
  const causes = s.causes.length ? s.causes.map((c) => `${c.cause} ${c.orders}`).join(', ') : 'none';
  return [
    `live ${r.live.orders} orders (${r.live.fills} fills), simulated ${r.sim.orders} orders (${r.sim.fills} fills; fills ${r.sim.fillModel}, latency ${r.sim.latencyMs} ms)`,
    `paired ${s.paired} (matched ${s.matched}), live only ${s.liveOnly}, simulated only ${s.simOnly}; causes: ${causes}`,
    `PnL live ${moneyText(s.livePnl)}, simulated ${moneyText(s.simPnl)}, gap ${moneyText(Decimal.from(s.simPnl).sub(Decimal.from(s.livePnl)).toString())}`,
  ];
}
