// A force exit (Control.forceExit, /forceexit): a strategy's holding of one symbol closed as the strategy's own
// order through the risk gate and the executor (its client id journaled before the send), after the strategy is
// paused and its orders there canceled; what it holds is worked out from its own fills, capped by what the account
// holds now. Exits run one at a time: a second works out what is left once the first's fills are known.
import { Decimal } from '../domain/decimal.js';
import type { OrderSpec } from '../domain/intent.js';
import type { Instrument, PositionSide } from '../domain/market.js';
import { futuresSide } from '../domain/order.js';
import type { CommandResult } from '../ops/control.js';
import { assertNever } from '../util/assert-never.js';
import type { Logger } from '../util/logger.js';
import type { Core } from './core.js';

/** A force exit's plan: the closing orders, and what was found (held by the fills, held by the account). */
interface ClosePlan {
  orders: OrderSpec[];
  /** One line per side looked at: what its fills hold, what the account holds, what is closed. */
  found: string[];
}

export class ForceExits {
  /** The force exit under way. */
  private exiting: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly core: Core,
    private readonly log: Logger,
    /** Cancels the strategy's orders of the symbol through the executor (its intents taken before drained first); says what was done. */
    private readonly cancelOwn: (id: string, symbol: string) => Promise<string>,
  ) {}

  /** Closes what the (configured) strategy holds of the symbol; one exit at a time. */
  run(id: string, symbol: string): Promise<CommandResult> {
    const run = this.exiting.then(
      () => this.exit(id, symbol),
      () => this.exit(id, symbol),
    );
    this.exiting = run.catch(() => undefined);
    return run;
  }

  private async exit(id: string, symbol: string): Promise<CommandResult> {
    const core = this.core;
    const symbols = core.runner.configs().find((c) => c.id === id)!.symbols;
    const instrument = core.instruments.get(symbol);
    if (!symbols.includes(symbol) || !instrument)
      return { ok: false, status: 404, error: `${id} does not trade ${symbol} (its symbols: ${symbols.join(', ')})` };
    // Nothing to close: refused before anything changes (its orders on the symbol looked up first: fills the
    // journal has not recorded yet count).
    await this.settleOwn(id, symbol);
    const before = await this.closePlan(id, instrument);
    if (before.orders.length === 0) return { ok: false, status: 409, error: `nothing to close: ${before.found.join('; ')}` };

    const wasPaused = core.runner.status().find((s) => s.id === id)?.paused === true;
    core.runner.pause(id);
    const steps = [wasPaused ? `${id} stays paused` : `${id} paused`, `its orders on ${symbol}: ${await this.cancelOwn(id, symbol)}`];
    // Its orders whose cancel found nothing (filled meanwhile) are looked up: their fills change what it holds.
    await this.settleOwn(id, symbol);
    // An order still not final (its outcome or its cancel unconfirmed) may yet fill: what it holds is not known, and
    // a close worked out now could sell what is not its own. Nothing is sent until the order tracker has settled it.
    const unsettled = core.journal.activeOrders().filter((r) => r.strategyId === id && r.symbol === symbol && !(r.isTrigger && r.reduceOnly));
    if (unsettled.length) {
      const which = unsettled.map((r) => `${r.clientOid} ${r.state}`).join(', ');
      return {
        ok: false,
        status: 409,
        error: `${steps.join('; ')}; not closed: its orders on ${symbol} are not all settled (${which}): ask again once the order tracker has settled them; ${id} stays paused`,
      };
    }
    const plan = await this.closePlan(id, instrument);
    if (plan.orders.length === 0) return { ok: true, detail: `${steps.join('; ')}; nothing left to close: ${plan.found.join('; ')}` };

    const events = await core.executor.submit({ kind: 'place', strategyId: id, surface: instrument.surface, symbol, orders: plan.orders });
    const outcomes: string[] = [];
    let refused: string | undefined;
    for (const e of events) {
      switch (e.type) {
        case 'denied':
          refused = `the risk gate refused the close (${e.reason}): ${e.detail}`;
          break;
        case 'rejected':
          refused = `the venue rejected the close ${e.clientOid}: ${e.reason}`;
          break;
        case 'unknown':
          outcomes.push(`${e.clientOid} sent, outcome unknown: the order tracker resolves it by its client id (it is never sent again)`);
          break;
        case 'accepted':
          outcomes.push(await this.closeOutcome(e.clientOid));
          break;
        // Not what a placing answers (the tracker's and the cancels' events).
        case 'resolved':
        case 'lost':
        case 'vanished':
        case 'partially-filled':
        case 'filled':
        case 'canceled':
        case 'triggered':
        case 'trading-state':
          break;
        default:
          assertNever(e, 'execution event');
      }
    }
    const done = `${steps.join('; ')}; ${plan.found.join('; ')}`;
    if (refused) return { ok: false, status: 409, error: `${refused}; ${done}${outcomes.length ? `; ${outcomes.join('; ')}` : ''}; ${id} stays paused` };
    const stops = await this.cancelStopsIfFlat(id, symbol);
    return { ok: true, detail: `${done}: ${outcomes.join('; ')}${stops}; /resume ${id} lets it trade again` };
  }

  /** Looks up the strategy's orders of a symbol the journal holds as not final (their fills are recorded). */
  private async settleOwn(id: string, symbol: string): Promise<void> {
    const mine = this.core.journal
      .activeOrders()
      .filter((r) => r.strategyId === id && r.symbol === symbol)
      .map((r) => r.clientOid);
    if (mine.length) await this.core.tracker.settle(mine);
  }

  /**
   * What each strategy's fills hold of a symbol (bought less sold; a short grows with sells): per futures position
   * side, or the spot net; by strategy id (those no longer configured too).
   */
  private holdings(instrument: Instrument): Map<string, Map<PositionSide | 'spot', Decimal>> {
    const { journal } = this.core;
    const futures = instrument.surface === 'futures';
    const all = new Map<string, Map<PositionSide | 'spot', Decimal>>();
    for (const f of journal.fills()) {
      if (f.symbol !== instrument.symbol || !f.side || !f.strategyId) continue;
      const row = journal.order(f.clientOid);
      const key: PositionSide | 'spot' = futures ? ((row?.positionSide as PositionSide | null) ?? (f.side === 'buy' ? 'long' : 'short')) : 'spot';
      const grows = key === 'short' ? f.side === 'sell' : f.side === 'buy';
      const size = Decimal.from(f.size);
      const held = all.get(f.strategyId) ?? new Map<PositionSide | 'spot', Decimal>();
      held.set(key, (held.get(key) ?? Decimal.ZERO).add(grows ? size : size.neg()));
      all.set(f.strategyId, held);
    }
    return all;
  }

  /** What one strategy's fills hold of a symbol (see holdings). */
  private ownHolding(id: string, instrument: Instrument): Map<PositionSide | 'spot', Decimal> {
    return this.holdings(instrument).get(id) ?? new Map<PositionSide | 'spot', Decimal>();
  }

  /**
   * What closes the strategy's holding of a symbol: per futures position side, what its fills hold there, capped by
   * what the account holds on that side as read now less what the other strategies' fills hold there, a reduce-only
   * market order; on spot the same with the base asset available, a market sell. A holding closed outside a
   * strategy's own orders (a flatten through the venue's close-all, a liquidation, a hand on the venue) leaves its
   * fills saying more than is there: the other strategies' parts are never taken for it. Sizes rounded down to the
   * step; below the minimum size, nothing.
   */
  private async closePlan(id: string, instrument: Instrument): Promise<ClosePlan> {
    const all = this.holdings(instrument);
    const held = all.get(id) ?? new Map<PositionSide | 'spot', Decimal>();
    const plan: ClosePlan = { orders: [], found: [] };
    const keys: Array<PositionSide | 'spot'> = instrument.surface === 'futures' ? ['long', 'short'] : ['spot'];
    const own = keys.map((key) => ({ key, size: held.get(key) ?? Decimal.ZERO })).filter((x) => x.size.gt(Decimal.ZERO));
    if (own.length === 0) {
      plan.found.push(`${id} holds nothing on ${instrument.symbol} by its fills`);
      return plan;
    }
    const account = instrument.surface === 'futures' ? await this.positionSizes(instrument.symbol) : await this.availableBase(instrument);
    for (const { key, size } of own) {
      const there = account.get(key) ?? Decimal.ZERO;
      let others = Decimal.ZERO;
      for (const [other, holding] of all) {
        const part = holding.get(key);
        if (other !== id && part?.gt(Decimal.ZERO)) others = others.add(part);
      }
      const free = there.sub(others).gt(Decimal.ZERO) ? there.sub(others) : Decimal.ZERO;
      const capped = (size.lt(free) ? size : free).roundToStep(instrument.stepSize, 'down');
      const accountHolds = key === 'spot' ? `${there.toString()} available` : `the account ${there.toString()}`;
      const what = `${key === 'spot' ? `${id} bought ${size.toString()} ${instrument.base} more than it sold` : `${id} holds ${key} ${size.toString()}`}, ${accountHolds}${others.isZero() ? '' : `, other strategies' fills ${others.toString()}`}`;
      if (capped.isZero() || capped.lt(instrument.minSize)) {
        plan.found.push(
          `${what}: nothing to close${capped.isZero() ? '' : ` (${capped.toString()} is below the minimum size ${instrument.minSize.toString()})`}`,
        );
        continue;
      }
      if (key === 'spot') {
        plan.orders.push({ side: 'sell', kind: 'market', timeInForce: 'ioc', size: capped });
        plan.found.push(`${what}: selling ${capped.toString()} at market`);
      } else {
        plan.orders.push({ side: futuresSide(key, true), kind: 'market', timeInForce: 'ioc', size: capped, positionSide: key, reduceOnly: true });
        plan.found.push(`${what}: closing ${key} ${capped.toString()} at market`);
      }
    }
    return plan;
  }

  /** The account's futures position sizes of a symbol by side, read from the venue now. */
  private async positionSizes(symbol: string): Promise<Map<PositionSide | 'spot', Decimal>> {
    const sizes = new Map<PositionSide | 'spot', Decimal>();
    for (const p of await this.core.venue.trading.positions(symbol))
      if (p.symbol === symbol) sizes.set(p.side, (sizes.get(p.side) ?? Decimal.ZERO).add(p.size.abs()));
    return sizes;
  }

  /** The base asset of a spot pair available in the account, read from the venue now. */
  private async availableBase(instrument: Instrument): Promise<Map<PositionSide | 'spot', Decimal>> {
    const balance = (await this.core.venue.trading.balances('spot')).find((b) => b.asset === instrument.base);
    return new Map([['spot', balance ? (balance.available ?? balance.total) : Decimal.ZERO]]);
  }

  /** What became of an accepted close, once looked up at the venue (its fills recorded, told as events). */
  private async closeOutcome(clientOid: string): Promise<string> {
    const { journal, tracker } = this.core;
    await tracker.settle([clientOid]).catch((err: unknown) => this.log.warn({ clientOid, err: String(err) }, 'looking up a force exit failed'));
    const row = journal.order(clientOid);
    if (!row) return `${clientOid} accepted`;
    const filled = Decimal.from(row.filledSize);
    if (filled.isZero()) return `${clientOid} accepted as ${row.orderId ?? '?'}, ${row.state}, nothing filled yet`;
    return `${clientOid} ${row.state === 'filled' ? 'filled' : `${row.state}, filled`} ${row.filledSize} of ${row.size}${row.avgPrice ? ` at ${row.avgPrice}` : ''}`;
  }

  /**
   * Once the strategy holds nothing more of the symbol by its fills, its reduce-only trigger orders there (stops it
   * placed itself) protect nothing of its own and could close another strategy's part of the position, or a position
   * it opens after /resume: they are canceled. Position stops kept by the stop manager go with the position.
   */
  private async cancelStopsIfFlat(id: string, symbol: string): Promise<string> {
    const core = this.core;
    const instrument = core.instruments.get(symbol)!;
    if (instrument.surface !== 'futures') return '';
    await this.settleOwn(id, symbol);
    if ([...this.ownHolding(id, instrument).values()].some((size) => size.gt(Decimal.ZERO))) return '';
    const stops = core.journal.activeOrders().filter((r) => r.strategyId === id && r.symbol === symbol && r.isTrigger && r.reduceOnly && !r.role && r.orderId);
    let canceled = 0;
    for (const r of stops) {
      const out = await core.executor.submit({ kind: 'cancel-trigger', strategyId: id, symbol, orderId: r.orderId! });
      canceled += out.filter((e) => e.type === 'canceled').length;
    }
    return stops.length ? `; ${canceled} of its ${stops.length} stop(s) on ${symbol} canceled` : '';
  }
}
