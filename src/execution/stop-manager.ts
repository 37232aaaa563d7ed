// The stop manager: keeps the venue's position stops in line with the protection strategies want (protect
// intents), per strategy, futures symbol and position side: a stop-loss (the tighter of a fixed price and a
// trailing stop) and a take-profit, each one position TP/SL order (F23) sized to the position while it has size.
// A wanted price that changes is moved in place (F24), at most maxModifiesPerMinute times a minute per stop (the
// latest price goes when allowed). A position whose size changed gets its stop canceled (F9) and, once the cancel is
// confirmed, a new one; a flat position or a removed protection gets its stops canceled and confirmed gone (a
// cancel that finds nothing is verified by lookup: the venue cancels a flat position's stops itself). Never two
// live stops of one role on one position side: nothing is placed while any order of that stop is not final, and an
// unknown outcome is left to the order tracker, never re-sent. Every request goes through the executor (journal
// first, the limiter). The wanted protection and the trailing state are kept in the journal across restarts;
// stops of strategies no longer running are canceled.
import { Decimal } from '../domain/decimal.js';
import type { ExecutionEvent } from '../domain/events.js';
import { removesProtection, type ProtectIntent, type TrailingStop } from '../domain/intent.js';
import type { Instrument, Position, PositionSide, Ticker } from '../domain/market.js';
import type { Journal, JournalOrder } from '../journal/journal.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { Executor } from './executor.js';
import type { OrderTracker } from './order-tracker.js';
import { loadProtections, saveProtections, type Protection } from './protections.js';
import type { ProtectionKeeper } from './stop-orders.js';
import { bestOf, nextTrail, tighterStop } from './trailing.js';

/** The `execution.stops` settings. */
export interface StopSettings {
  /** Most moves (F24) of one stop in any minute; a move beyond it waits. */
  maxModifiesPerMinute: number;
  /** What stops trigger on, set with each move (F24): placing (F23) takes no trigger type. */
  triggerPriceType: 'last' | 'mark';
}

export const DEFAULT_STOP_SETTINGS: StopSettings = { maxModifiesPerMinute: 6, triggerPriceType: 'last' };

export interface StopManagerOptions {
  executor: Executor;
  tracker: OrderTracker;
  journal: Journal;
  clock: Clock;
  logger: Logger;
  instruments: ReadonlyMap<string, Instrument>;
  settings?: StopSettings;
  /** The strategy instances running: the stops of any other are canceled, its protection dropped. */
  strategyIds: readonly string[];
}

type Role = 'stop-loss' | 'take-profit';
const ROLES: readonly Role[] = ['stop-loss', 'take-profit'];

/** A refused placement is tried again after this long, unless the price or size wanted changes. */
const RETRY_REFUSED_MS = 30_000;
/** A stop whose cancel found nothing is looked up at most this often until it is final. */
const VERIFY_EVERY_MS = 5_000;
const MINUTE_MS = 60_000;
/** Actions one stop may take in one sync (a confirmed cancel, then its replacement). */
const ACTIONS_PER_SYNC = 3;

/** What one stop needs now. */
type Action =
  | { type: 'none' }
  | { type: 'wait'; why: string }
  | { type: 'place'; size: Decimal; price: Decimal }
  | { type: 'move'; row: JournalOrder; price: Decimal }
  | { type: 'cancel'; row: JournalOrder }
  | { type: 'verify'; row: JournalOrder };

/** What the manager remembers of one stop while it runs (not across restarts). */
interface StopRuntime {
  /** When its moves were sent, the last minute's. */
  movesAtMs: number[];
  refused?: { price: string; size: string; atMs: number };
  verifiedAtMs?: number;
  /** The venue id whose trigger type was set by a move (mark price): sent once per stop order. */
  typedOrderId?: string;
  /** Its order last seen active, and the orders this manager canceled. */
  lastOid?: string;
  canceledByUs: Set<string>;
  /** It ended without our cancel (fired, canceled by the venue): placing waits for a positions reading after this. */
  positionsAfterMs?: number;
}

/** One stop: a role of one protection key, its protection (absent: not wanted) and its orders not final. */
interface Stop {
  key: string;
  strategyId: string;
  symbol: string;
  positionSide: PositionSide;
  role: Role;
  protection: Protection | undefined;
  rows: JournalOrder[];
}

const keyOf = (strategyId: string, symbol: string, side: string): string => `${strategyId}|${symbol}|${side}`;
const sameDecimal = (a: Decimal | null, b: Decimal | null): boolean => (a === null || b === null ? a === b : a.eq(b));
const sameTrailing = (a: TrailingStop | null, b: TrailingStop | null): boolean =>
  a === null || b === null ? a === b : a.distance.eq(b.distance) && a.step.eq(b.step);
/** A decimal a strategy handed over (maybe another copy of the class), as this module's own. */
const own = (x: Decimal | null | undefined): Decimal | null => (x == null ? null : Decimal.from(x.toString()));

export class StopManager implements ProtectionKeeper {
  private readonly settings: StopSettings;
  private readonly logger: Logger;
  private readonly running: ReadonlySet<string>;
  private readonly protections: Map<string, Protection>;
  private readonly runtimes = new Map<string, StopRuntime>();
  private readonly positions = new Map<string, Position>();
  private positionsAtMs: number | null = null;
  private readonly prices = new Map<string, Decimal>();
  private lastSaved: string;
  /** Orders of stops may exist (a restart, a placing): until a sync finds none with no protection wanted. */
  private mayHaveOrders = true;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly opts: StopManagerOptions) {
    this.settings = opts.settings ?? DEFAULT_STOP_SETTINGS;
    this.logger = opts.logger.child({ component: 'stop-manager' });
    this.running = new Set(opts.strategyIds);
    const { protections, saved } = loadProtections(opts.journal);
    this.lastSaved = saved;
    this.protections = new Map();
    for (const p of protections) {
      if (this.running.has(p.strategyId)) this.protections.set(keyOf(p.strategyId, p.symbol, p.positionSide), p);
      else
        this.logger.info(
          { strategy: p.strategyId, symbol: p.symbol, positionSide: p.positionSide },
          'protection of a strategy no longer running dropped: its stops are canceled',
        );
    }
    this.save();
  }

  /** The protection wanted on each key (strategy, symbol, position side), for status and tests. */
  wanted(): Protection[] {
    return [...this.protections.values()].map((p) => ({ ...p }));
  }

  /** A protect intent that passed the gate: it replaces the protection of its key (or removes it); the venue follows. */
  async protect(intent: ProtectIntent, intentId: number, out: ExecutionEvent[]): Promise<void> {
    const key = keyOf(intent.strategyId, intent.symbol, intent.positionSide);
    const was = this.protections.get(key);
    if (removesProtection(intent)) {
      if (was) this.logger.info({ strategy: intent.strategyId, symbol: intent.symbol, positionSide: intent.positionSide }, 'protection removed');
      this.protections.delete(key);
    } else {
      const trailing = intent.trailing ? { distance: own(intent.trailing.distance)!, step: own(intent.trailing.step)! } : null;
      const next: Protection = {
        strategyId: intent.strategyId,
        symbol: intent.symbol,
        positionSide: intent.positionSide,
        stopLoss: own(intent.stopLoss),
        takeProfit: own(intent.takeProfit),
        trailing,
        intentId,
        extreme: was?.extreme ?? null,
        trail: null,
      };
      const same = was && sameDecimal(was.stopLoss, next.stopLoss) && sameDecimal(was.takeProfit, next.takeProfit) && sameTrailing(was.trailing, next.trailing);
      if (same) return this.sync(out); // the same protection asked for again: nothing changes
      // The trailing stop carries on unless its distance or step changed (then it starts again from the best price).
      if (was && sameTrailing(was.trailing, trailing)) next.trail = was.trail;
      const pos = this.positions.get(`${next.symbol}|${next.positionSide}`);
      if (pos) this.follow(next, bestOf(next.positionSide, pos.entryPrice, this.prices.get(next.symbol) ?? null));
      this.protections.set(key, next);
      this.logger.info(
        {
          strategy: next.strategyId,
          symbol: next.symbol,
          positionSide: next.positionSide,
          stopLoss: next.stopLoss?.toString() ?? null,
          takeProfit: next.takeProfit?.toString() ?? null,
          trailing: trailing ? { distance: trailing.distance.toString(), step: trailing.step.toString() } : null,
        },
        'protection set',
      );
    }
    this.save();
    return this.sync(out);
  }

  /** The positions as last read (every traded futures symbol; a side not listed is flat), read at `atMs`. */
  observePositions(positions: readonly Position[], atMs: number): void {
    this.positions.clear();
    for (const p of positions) if (p.size.gt(Decimal.ZERO)) this.positions.set(`${p.symbol}|${p.side}`, p);
    this.positionsAtMs = atMs;
    let changed = false;
    for (const p of this.protections.values()) {
      const pos = this.positions.get(`${p.symbol}|${p.positionSide}`);
      if (!pos) {
        // Flat: the trailing stop starts again with the next position.
        changed ||= p.extreme !== null || p.trail !== null;
        p.extreme = p.trail = null;
        continue;
      }
      if (p.extreme === null) changed = this.follow(p, bestOf(p.positionSide, pos.entryPrice, this.prices.get(p.symbol) ?? null)) || changed;
    }
    if (changed) this.save();
  }

  /** A tickers update: the best price of each protected open position, and its trailing stop. */
  observeTickers(tickers: ReadonlyMap<string, Ticker>): void {
    let changed = false;
    for (const t of tickers.values()) {
      const price = this.settings.triggerPriceType === 'mark' ? (t.markPrice ?? t.last) : t.last;
      if (price) this.prices.set(t.symbol, price);
    }
    for (const p of this.protections.values()) {
      if (!this.positions.has(`${p.symbol}|${p.positionSide}`)) continue;
      changed = this.follow(p, this.prices.get(p.symbol) ?? null) || changed;
    }
    if (changed) this.save();
  }

  /** Takes a price into a protection's best price and trailing stop; true when either changed. */
  private follow(p: Protection, price: Decimal | null): boolean {
    const extreme = bestOf(p.positionSide, p.extreme, price);
    if (!extreme) return false;
    const better = !p.extreme || !extreme.eq(p.extreme);
    if (!better && (p.trail !== null || !p.trailing)) return false;
    p.extreme = extreme;
    if (p.trailing) p.trail = nextTrail(p.positionSide, p.trail, extreme, p.trailing, this.tick(p.symbol));
    return true;
  }

  /** Does a stop need a request now (a sync would send something)? Cheap: no request, one journal read. */
  pending(): boolean {
    if (this.positionsAtMs === null || (this.protections.size === 0 && !this.mayHaveOrders)) return false;
    const now = this.opts.clock.now();
    const stops = this.stops();
    if (stops.length === 0) this.mayHaveOrders = false;
    return stops.some((s) => {
      const a = this.decide(s, now);
      return a.type !== 'none' && a.type !== 'wait';
    });
  }

  /**
   * Brings the venue in line with the protection wanted, stop by stop; syncs run one at a time. Nothing is done before
   * the positions have been read once (a stop is not removed for a position not known to be flat).
   */
  sync(out: ExecutionEvent[] = []): Promise<void> {
    const run = async () => {
      if (this.positionsAtMs === null) return;
      let orders = 0;
      for (const stop of this.stops()) {
        for (let k = 0; k < ACTIONS_PER_SYNC; k++) {
          const action = this.decide(stop, this.opts.clock.now());
          if (action.type === 'none' || action.type === 'wait') break;
          try {
            await this.perform(stop, action, out);
          } catch (err) {
            this.logger.error(
              { strategy: stop.strategyId, symbol: stop.symbol, positionSide: stop.positionSide, role: stop.role, action: action.type, err: String(err) },
              'stop request failed: tried again later',
            );
            break;
          }
          stop.rows = this.rowsOf(stop);
        }
        orders += stop.rows.length;
      }
      this.mayHaveOrders = orders > 0;
      this.save();
    };
    const next = this.chain.then(run, run);
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** Every stop with a protection wanted or an order not final: the journal's orders of each, oldest first. */
  private stops(): Stop[] {
    const byKey = new Map<string, Stop>();
    const stopOf = (strategyId: string, symbol: string, side: PositionSide, role: Role): Stop => {
      const key = `${keyOf(strategyId, symbol, side)}|${role}`;
      let s = byKey.get(key);
      if (!s)
        byKey.set(
          key,
          (s = { key, strategyId, symbol, positionSide: side, role, protection: this.protections.get(keyOf(strategyId, symbol, side)), rows: [] }),
        );
      return s;
    };
    for (const p of this.protections.values()) for (const role of ROLES) stopOf(p.strategyId, p.symbol, p.positionSide, role);
    for (const r of this.opts.journal.activeOrders()) {
      if (!r.role || (r.positionSide !== 'long' && r.positionSide !== 'short')) continue;
      stopOf(r.strategyId, r.symbol, r.positionSide, r.role).rows.push(r);
    }
    return [...byKey.values()];
  }

  private rowsOf(stop: Stop): JournalOrder[] {
    return this.opts.journal
      .activeOrders()
      .filter((r) => r.role === stop.role && r.strategyId === stop.strategyId && r.symbol === stop.symbol && r.positionSide === stop.positionSide);
  }

  private runtime(key: string): StopRuntime {
    let rt = this.runtimes.get(key);
    if (!rt) this.runtimes.set(key, (rt = { movesAtMs: [], canceledByUs: new Set() }));
    return rt;
  }

  /** The trigger price wanted for a stop; null: none. */
  private wantedPrice(p: Protection, role: Role): Decimal | null {
    return role === 'take-profit' ? p.takeProfit : tighterStop(p.positionSide, p.stopLoss, p.trailing ? p.trail : null);
  }

  /** What a stop needs now, from the protection wanted, the position as last read and its orders in the journal. */
  private decide(stop: Stop, now: number): Action {
    const rt = this.runtime(stop.key);
    this.notice(stop, rt);
    const p = stop.protection;
    const size = this.positions.get(`${stop.symbol}|${stop.positionSide}`)?.size ?? Decimal.ZERO;
    const price = p && this.running.has(stop.strategyId) ? this.wantedPrice(p, stop.role) : null;
    if (price === null || size.isZero()) return this.removeAll(stop.rows, rt, now);
    // Never expected (one is placed only when none is active): the newer ones go.
    if (stop.rows.length > 1) return this.removeAll(stop.rows.slice(1), rt, now);
    const row = stop.rows[0];
    if (!row) {
      if (this.opts.executor.fenced) return { type: 'wait', why: 'trading fenced' };
      if (rt.positionsAfterMs !== undefined && this.positionsAtMs! <= rt.positionsAfterMs)
        return { type: 'wait', why: 'the position as it is since the stop ended' };
      const refused = rt.refused;
      if (refused && refused.price === price.toString() && refused.size === size.toString() && now - refused.atMs < RETRY_REFUSED_MS)
        return { type: 'wait', why: 'refused a moment ago' };
      return { type: 'place', size, price };
    }
    if (row.state === 'canceling') return this.verifyOrWait(row, rt, now);
    // Being sent, unanswered, lost or fired: the tracker settles it first.
    if (row.state !== 'untriggered' || !row.orderId) return { type: 'wait', why: `its order is ${row.state}` };
    if (!Decimal.from(row.size).eq(size)) return { type: 'cancel', row };
    const typeToSet = this.settings.triggerPriceType === 'mark' && rt.typedOrderId !== row.orderId;
    if (row.triggerPrice !== null && Decimal.from(row.triggerPrice).eq(price) && !typeToSet) return { type: 'none' };
    rt.movesAtMs = rt.movesAtMs.filter((t) => now - t < MINUTE_MS);
    if (rt.movesAtMs.length >= this.settings.maxModifiesPerMinute) return { type: 'wait', why: 'moves per minute used up' };
    return { type: 'move', row, price };
  }

  /** The first removal step of these orders (cancel, or a lookup of one being canceled); wait when none can go now. */
  private removeAll(rows: JournalOrder[], rt: StopRuntime, now: number): Action {
    for (const row of rows) {
      if (row.state === 'untriggered' && row.orderId) return { type: 'cancel', row };
      const a = row.state === 'canceling' ? this.verifyOrWait(row, rt, now) : undefined;
      if (a && a.type !== 'wait') return a;
    }
    return rows.length > 0 ? { type: 'wait', why: 'its orders are being settled' } : { type: 'none' };
  }

  private verifyOrWait(row: JournalOrder, rt: StopRuntime, now: number): Action {
    if (rt.verifiedAtMs !== undefined && now - rt.verifiedAtMs < VERIFY_EVERY_MS) return { type: 'wait', why: 'its cancel is being confirmed' };
    return { type: 'verify', row };
  }

  /** A stop order that ended since it was last seen, not by our cancel (fired, canceled by the venue): the position changed. */
  private notice(stop: Stop, rt: StopRuntime): void {
    if (rt.lastOid && !stop.rows.some((r) => r.clientOid === rt.lastOid)) {
      const ended = this.opts.journal.order(rt.lastOid);
      if (ended && !rt.canceledByUs.has(ended.clientOid)) rt.positionsAfterMs = Math.max(rt.positionsAfterMs ?? 0, ended.updatedAtMs);
      rt.canceledByUs.delete(rt.lastOid);
    }
    rt.lastOid = stop.rows[0]?.clientOid;
  }

  private async perform(stop: Stop, action: Exclude<Action, { type: 'none' | 'wait' }>, out: ExecutionEvent[]): Promise<void> {
    const rt = this.runtime(stop.key);
    const fields = { strategy: stop.strategyId, symbol: stop.symbol, positionSide: stop.positionSide, role: stop.role };
    switch (action.type) {
      case 'place': {
        this.mayHaveOrders = true;
        const res = await this.opts.executor.placeStop(
          {
            strategyId: stop.strategyId,
            intentId: stop.protection!.intentId,
            symbol: stop.symbol,
            positionSide: stop.positionSide,
            role: stop.role,
            size: action.size,
            triggerPrice: action.price,
          },
          out,
        );
        if (res?.outcome === 'rejected') rt.refused = { price: action.price.toString(), size: action.size.toString(), atMs: this.opts.clock.now() };
        this.logger.info(
          { ...fields, size: action.size.toString(), triggerPrice: action.price.toString(), outcome: res?.outcome ?? 'not sent' },
          'stop placed',
        );
        return;
      }
      case 'move': {
        const type = this.settings.triggerPriceType;
        rt.movesAtMs.push(this.opts.clock.now());
        const res = await this.opts.executor.moveStop(action.row, action.price, type);
        if (res.outcome === 'accepted' && type === 'mark') rt.typedOrderId = action.row.orderId!;
        this.logger.debug({ ...fields, from: action.row.triggerPrice, to: action.price.toString(), outcome: res.outcome }, 'stop moved');
        // Not found: the stop fired or the venue canceled it; a lookup says which.
        if (res.outcome === 'rejected' && res.error.category === 'not-found') await this.verify(action.row, rt);
        return;
      }
      case 'cancel': {
        rt.canceledByUs.add(action.row.clientOid);
        const res = await this.opts.executor.cancelStop(action.row, out);
        // Not found: already gone (the venue cancels the stops of a flat position), or fired; the order is left
        // canceling, and the next step looks it up.
        this.logger.info({ ...fields, clientOid: action.row.clientOid, outcome: res?.outcome ?? 'not sent' }, 'stop canceled');
        return;
      }
      case 'verify':
        return this.verify(action.row, rt);
    }
  }

  private async verify(row: JournalOrder, rt: StopRuntime): Promise<void> {
    rt.verifiedAtMs = this.opts.clock.now();
    await this.opts.tracker.settle([row.clientOid]);
  }

  private tick(symbol: string): Decimal {
    const inst = this.opts.instruments.get(symbol);
    if (!inst) throw new Error(`protection on ${symbol}: no such instrument`);
    return inst.tickSize;
  }

  /** Writes the protection wanted and the trailing state to the journal, when it changed. */
  private save(): void {
    this.lastSaved = saveProtections(this.opts.journal, [...this.protections.values()], this.lastSaved, this.opts.clock.now());
  }
}
