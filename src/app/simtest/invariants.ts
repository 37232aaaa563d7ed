// What a simulated run must never show, each with a name: checked at every step of virtual time and at the end,
// against the venue's own truth (the simulator's engine) and the journal on disk.
import { Decimal } from '../../domain/decimal.js';
import { FINAL_STATES, UNANSWERED_STATES, type Journal, type JournalOrder } from '../../journal/journal.js';
import type { SimulatedExchange } from '../../exchange/sim/simulated-exchange.js';
import type { SimOrder } from '../../exchange/sim/sim-order.js';

export type InvariantName =
  /** No client id lost (accepted at the venue, unknown to the journal; a journal row gone) or sent twice (accepted twice). */
  | 'client-ids'
  /** No order resting at the venue that the journal holds final or does not know, beyond the grace the design allows. */
  | 'untracked-resting'
  /** No position beyond a strategy's design bound. */
  | 'position-bound'
  /** No state that needs a person: a fence that never lifts, a latch no command clears, a lease never taken back. */
  | 'needs-person'
  /** Fills, fees and spot balances agree with the journal's to the last digit. */
  | 'ledger'
  /** No order sent while another daemon held the account's lease. */
  | 'lease'
  /** Every unanswered order concluded within its bound. */
  | 'unknown-bound';

export const INVARIANTS: readonly InvariantName[] = ['client-ids', 'untracked-resting', 'position-bound', 'needs-person', 'ledger', 'lease', 'unknown-bound'];

export interface Violation {
  invariant: InvariantName;
  atMs: number;
  detail: string;
}

/** A strategy whose position is bounded by design: at most `max` held (long, or spot base since the start). */
export interface PositionBound {
  strategyId: string;
  symbol: string;
  max: Decimal;
  /** Spot: the base asset and what the account held of it at the start. */
  spot?: { asset: string; start: Decimal };
}

export interface CheckerOptions {
  sim: SimulatedExchange;
  /** The journal as the process that trades now has it on disk (or the last one, while none runs). */
  journal: () => Journal;
  /** How long an order may go untracked, or unanswered, past the time the venue or the daemon could not be asked. */
  boundMs: number;
  /** Milliseconds within [from, to] when the venue or the daemon was out of reach (faults, restarts). */
  blockedMs: (fromMs: number, toMs: number) => number;
  bounds: readonly PositionBound[];
  /** Strategies no longer bound by design (they flooded). */
  unbound: () => ReadonlySet<string>;
  clientOidPrefix: string;
}

export class Checker {
  readonly violations: Violation[] = [];
  /** Placements the venue accepted, by client id. */
  private readonly accepted = new Map<string, number>();
  private readonly untrackedSince = new Map<string, number>();
  private readonly unansweredSince = new Map<string, number>();
  private journalRows = 0;
  /** Unanswered orders seen concluded (figures). */
  concluded = 0;

  constructor(private readonly opts: CheckerOptions) {}

  fail(invariant: InvariantName, atMs: number, detail: string): void {
    this.violations.push({ invariant, atMs, detail });
  }

  /** The venue accepted a placement (told by the fault client, as it happens). */
  accept(clientOid: string, orderId: string, atMs: number): void {
    if (!clientOid.startsWith(this.opts.clientOidPrefix)) return;
    const n = (this.accepted.get(clientOid) ?? 0) + 1;
    this.accepted.set(clientOid, n);
    if (n > 1) this.fail('client-ids', atMs, `client id ${clientOid} accepted ${n} times (order ${orderId}): sent twice`);
    if (!this.opts.journal().order(clientOid)) this.fail('client-ids', atMs, `client id ${clientOid} accepted (order ${orderId}) but not in the journal`);
  }

  /** The journal's orders, counted when a process opens it and at the end: none may have gone. */
  countRows(nowMs: number): void {
    const rows = Object.values(this.opts.journal().countByState()).reduce((a, b) => a + b, 0);
    if (rows < this.journalRows) this.fail('client-ids', nowMs, `the journal holds ${rows} orders, ${this.journalRows} before: rows lost`);
    this.journalRows = rows;
  }

  /** The checks of every step. */
  step(nowMs: number): void {
    const journal = this.opts.journal();
    this.checkResting(nowMs, journal);
    this.checkUnanswered(nowMs, journal);
    this.checkPositions(nowMs);
  }

  /**
   * The checks at the end, after the calm: those of a step (the calm is longer than the bound: whatever the faults
   * left waiting is overdue by now), and the ledger.
   */
  end(nowMs: number): void {
    this.step(nowMs);
    this.countRows(nowMs);
    this.checkLedger(nowMs, this.opts.journal());
  }

  private overdue(sinceMs: number, nowMs: number): boolean {
    return nowMs - sinceMs > this.opts.boundMs + this.opts.blockedMs(sinceMs, nowMs);
  }

  /** Orders resting at the venue (ours) that the journal does not hold as resting. */
  private checkResting(nowMs: number, journal: Journal): void {
    const { engine } = this.opts.sim;
    const seen = new Set<string>();
    for (const surface of ['spot', 'futures'] as const) {
      for (const o of engine.openOrders(surface)) {
        if (!o.clientOid.startsWith(this.opts.clientOidPrefix)) continue;
        const row = journal.order(o.clientOid);
        if (row && !FINAL_STATES.has(row.state) && row.state !== 'lost') continue;
        seen.add(o.orderId);
        const since = this.untrackedSince.get(o.orderId) ?? nowMs;
        this.untrackedSince.set(o.orderId, since);
        if (this.overdue(since, nowMs)) {
          this.fail(
            'untracked-resting',
            nowMs,
            `${o.surface} ${o.symbol} order ${o.orderId} (${o.clientOid}) rests at the venue; the journal holds it ${row ? row.state : 'not at all'} (since ${since})`,
          );
          this.untrackedSince.set(o.orderId, Number.POSITIVE_INFINITY);
        }
      }
    }
    for (const id of this.untrackedSince.keys()) if (!seen.has(id)) this.untrackedSince.delete(id);
  }

  /** Orders sent without a trustworthy answer, and how long they have been so. */
  private checkUnanswered(nowMs: number, journal: Journal): void {
    const seen = new Set<string>();
    for (const r of journal.activeOrders()) {
      if (!UNANSWERED_STATES.has(r.state)) continue;
      seen.add(r.clientOid);
      const since = this.unansweredSince.get(r.clientOid) ?? r.updatedAtMs;
      this.unansweredSince.set(r.clientOid, since);
      if (this.overdue(since, nowMs)) {
        this.fail('unknown-bound', nowMs, `order ${r.clientOid} (${r.symbol}) ${r.state} since ${since}: not concluded`);
        this.unansweredSince.set(r.clientOid, Number.POSITIVE_INFINITY);
      }
    }
    for (const id of this.unansweredSince.keys()) {
      if (seen.has(id)) continue;
      this.unansweredSince.delete(id);
      this.concluded++;
    }
  }

  private checkPositions(nowMs: number): void {
    const { sim } = this.opts;
    const unbound = this.opts.unbound();
    for (const b of this.opts.bounds) {
      if (unbound.has(b.strategyId)) continue;
      let held: Decimal;
      if (b.spot) {
        const asset = b.spot.asset;
        const bal = sim.engine.spotBalances().find((x) => x.asset === asset);
        held = (bal?.total ?? Decimal.ZERO).sub(b.spot.start);
      } else {
        held = sim.engine.positions(b.symbol).find((p) => p.side === 'long')?.size ?? Decimal.ZERO;
      }
      if (held.gt(b.max)) {
        this.fail('position-bound', nowMs, `${b.strategyId} holds ${held.toString()} ${b.symbol}, its design bound is ${b.max.toString()}`);
        b.max = held;
      }
    }
  }

  /** Each final order's fills and fee as the venue has them; the spot balances as the journal's fills make them. */
  private checkLedger(nowMs: number, journal: Journal): void {
    const { engine } = this.opts.sim;
    const fills = new Map<string, Array<{ fillId: string; price: string; size: string; fee: string }>>();
    for (const f of journal.fills()) fills.set(f.clientOid, [...(fills.get(f.clientOid) ?? []), f]);
    const delta = new Map<string, Decimal>();
    const add = (asset: string, x: Decimal) => delta.set(asset, (delta.get(asset) ?? Decimal.ZERO).add(x));
    for (const row of journal.allOrders()) {
      const venue = row.orderId ? engine.rawOrder(row.orderId) : undefined;
      const final = FINAL_STATES.has(row.state);
      if (final && venue) this.agree(nowMs, row, venue, fills.get(row.clientOid) ?? []);
      if (row.surface !== 'spot' || !venue) continue;
      const inst = engine.instrument(row.symbol)!;
      // Settled fills: the journal's for a final order, the venue's for one still open (not recorded yet).
      const own = final
        ? (fills.get(row.clientOid) ?? []).map((f) => ({ price: Decimal.from(f.price), size: Decimal.from(f.size), fee: Decimal.from(f.fee) }))
        : engine.fills(row.symbol, venue.orderId);
      for (const f of own) {
        const amount = f.price.mul(f.size);
        if (row.side === 'buy') {
          add(inst.base, f.size);
          add(inst.quote, amount.add(f.fee).neg());
        } else {
          add(inst.base, f.size.neg());
          add(inst.quote, amount.sub(f.fee));
        }
      }
    }
    this.spotDelta = delta;
  }

  /** What the journal's fills say the spot balances moved by (read by the run, which knows where they started). */
  spotDelta = new Map<string, Decimal>();

  private agree(nowMs: number, row: JournalOrder, venue: SimOrder, fills: ReadonlyArray<{ fillId: string; price: string; size: string; fee: string }>): void {
    const order = this.opts.sim.engine.toOrder(venue);
    const filled = Decimal.from(row.filledSize);
    const where = `${row.symbol} order ${row.clientOid} (${row.state})`;
    if (!filled.eq(order.filledSize))
      this.fail('ledger', nowMs, `${where}: the journal has ${row.filledSize} filled, the venue ${order.filledSize.toString()}`);
    if (order.filledSize.isZero()) return;
    const venueFills = this.opts.sim.engine.fills(row.symbol, venue.orderId);
    const sum = (xs: ReadonlyArray<{ size: string | Decimal }>) =>
      xs.reduce((s, f) => s.add(typeof f.size === 'string' ? Decimal.from(f.size) : f.size), Decimal.ZERO);
    if (fills.length !== venueFills.length || !sum(fills).eq(sum(venueFills)))
      this.fail(
        'ledger',
        nowMs,
        `${where}: the journal records ${fills.length} fills of ${sum(fills).toString()}, the venue ${venueFills.length} of ${sum(venueFills).toString()}`,
      );
    for (const f of fills) {
      const v = venueFills.find((x) => x.fillId === f.fillId);
      if (!v || !v.price.eq(Decimal.from(f.price)) || !v.size.eq(Decimal.from(f.size)) || !v.fee.eq(Decimal.from(f.fee)))
        this.fail('ledger', nowMs, `${where}: fill ${f.fillId} ${f.size} at ${f.price} fee ${f.fee} is not the venue's`);
    }
  }
}
