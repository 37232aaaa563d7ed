// What a strategy instance holds since it started, from its own fill events: size per symbol (signed), average
// entry, realised and unrealised PnL. In memory only: it starts empty at each start of the process.
import { Decimal } from '../domain/decimal.js';
import type { ExecutionEvent } from '../domain/events.js';
import type { Surface } from '../domain/market.js';

/** Scale of the divisions accounting needs (average entry, a share of a position's cost). */
const DIV_SCALE = 18;

/** One position: a net position (spot, or futures without a side) or one side of a futures position. */
export interface PositionHolding {
  /** Signed size: above 0 long, below 0 short (base currency). */
  readonly size: Decimal;
  /** What the open size cost (signed like the size: quote currency), exact. */
  readonly cost: Decimal;
  /** |cost| / |size|, rounded half-up to 18 decimal places; null when flat. */
  readonly avgEntry: Decimal | null;
  /** Profit of what was closed: exit value − its share of the entry cost (before fees), exact when closed whole. */
  readonly realisedPnl: Decimal;
  /** Profit of the open size at `price`: size × price − cost (before fees). */
  unrealisedPnl(price: Decimal): Decimal;
}

/**
 * What an instance holds in one symbol since it started (`ctx.inventory(symbol)`), from the fills of its own
 * orders only (not what the account held before, nor other instances' orders). Fees are not in the figures.
 * Futures positions are kept per side, as the venue holds them (`long` and `short`); `size` nets them.
 */
export interface Holding {
  readonly symbol: string;
  /** Net size: long minus short (base currency). */
  readonly size: Decimal;
  /** Average entry of the open size; null when flat, or when both futures sides are open (see long and short). */
  readonly avgEntry: Decimal | null;
  readonly realisedPnl: Decimal;
  unrealisedPnl(price: Decimal): Decimal;
  /** Futures: each side of the position on its own (sizes: long above 0, short below 0). Null on spot. */
  readonly long: PositionHolding | null;
  readonly short: PositionHolding | null;
  /** Size filled whose price the venue has not told yet (an order without an average price): not in `size` until it does. */
  readonly unpricedSize: Decimal;
}

class Leg implements PositionHolding {
  size = Decimal.ZERO;
  cost = Decimal.ZERO;
  realisedPnl = Decimal.ZERO;

  get avgEntry(): Decimal | null {
    return this.size.isZero() ? null : this.cost.abs().div(this.size.abs(), DIV_SCALE);
  }

  unrealisedPnl(price: Decimal): Decimal {
    return this.size.mul(price).sub(this.cost);
  }

  /** A fill of `qty` (above 0 bought, below 0 sold) worth `value` (quote, above 0). */
  fill(qty: Decimal, value: Decimal): void {
    if (this.size.isZero() || this.size.isNegative() === qty.isNegative()) {
      this.size = this.size.add(qty);
      this.cost = qty.isNegative() ? this.cost.sub(value) : this.cost.add(value);
      return;
    }
    // Reduces the position, and reverses it with what is left over.
    const held = this.size.abs();
    const traded = qty.abs();
    const closing = traded.lt(held) ? traded : held;
    const closeValue = closing.eq(traded) ? value : value.mul(closing).div(traded, DIV_SCALE);
    const costShare = closing.eq(held) ? this.cost : this.cost.mul(closing).div(held, DIV_SCALE);
    // Long: sold for closeValue what cost costShare. Short: bought back for closeValue what brought in -costShare.
    this.realisedPnl = this.realisedPnl.add(this.size.isNegative() ? costShare.neg().sub(closeValue) : closeValue.sub(costShare));
    this.cost = this.cost.sub(costShare);
    this.size = qty.isNegative() ? this.size.sub(closing) : this.size.add(closing);
    const rest = traded.sub(closing);
    if (!rest.isZero()) this.fill(qty.isNegative() ? rest.neg() : rest, value.sub(closeValue));
  }
}

class SymbolHolding implements Holding {
  /** Spot: the one net position. Futures: the long side (and a fill without a side). */
  readonly net = new Leg();
  readonly shortLeg: Leg | null;
  unpricedSize = Decimal.ZERO;

  constructor(
    readonly symbol: string,
    readonly surface: Surface,
  ) {
    this.shortLeg = surface === 'futures' ? new Leg() : null;
  }

  get size(): Decimal {
    return this.shortLeg ? this.net.size.add(this.shortLeg.size) : this.net.size;
  }

  get avgEntry(): Decimal | null {
    if (!this.shortLeg || this.shortLeg.size.isZero()) return this.net.avgEntry;
    return this.net.size.isZero() ? this.shortLeg.avgEntry : null;
  }

  get realisedPnl(): Decimal {
    return this.shortLeg ? this.net.realisedPnl.add(this.shortLeg.realisedPnl) : this.net.realisedPnl;
  }

  unrealisedPnl(price: Decimal): Decimal {
    const u = this.net.unrealisedPnl(price);
    return this.shortLeg ? u.add(this.shortLeg.unrealisedPnl(price)) : u;
  }

  get long(): PositionHolding | null {
    return this.shortLeg ? this.net : null;
  }

  get short(): PositionHolding | null {
    return this.shortLeg;
  }
}

/** What of one order is counted: its cumulative filled size seen, the part of it priced, and that part's value. */
interface OrderFills {
  seen: Decimal;
  counted: Decimal;
  value: Decimal;
}

/** Orders kept after they end, for fill events that come after the end (fills read after a cancel). */
const RECENT_ENDED = 4096;

/** One instance's holdings, kept from its fill events (cumulative filled size and average price per order). */
export class Inventory {
  private readonly holdings = new Map<string, SymbolHolding>();
  private readonly active = new Map<string, OrderFills>();
  private readonly ended = new Map<string, OrderFills>();

  constructor(private readonly surfaceOf: (symbol: string) => Surface) {}

  of(symbol: string): Holding {
    return this.holding(symbol);
  }

  private holding(symbol: string): SymbolHolding {
    let h = this.holdings.get(symbol);
    if (!h) {
      h = new SymbolHolding(symbol, this.surfaceOf(symbol));
      this.holdings.set(symbol, h);
    }
    return h;
  }

  /** Takes an event of the instance: fills change holdings; an order's end lets its record go (after a while). */
  apply(e: ExecutionEvent): void {
    switch (e.type) {
      case 'partially-filled':
      case 'filled':
        this.fill(e);
        if (e.type === 'filled') this.end(e.clientOid);
        return;
      case 'canceled':
      case 'vanished':
      case 'rejected':
        this.end(e.clientOid);
        return;
      default:
        return;
    }
  }

  private fill(e: Extract<ExecutionEvent, { type: 'filled' | 'partially-filled' }>): void {
    let o = this.active.get(e.clientOid) ?? this.ended.get(e.clientOid);
    if (!o) {
      o = { seen: Decimal.ZERO, counted: Decimal.ZERO, value: Decimal.ZERO };
      this.active.set(e.clientOid, o);
    }
    // Cumulative figures: an event repeated or older than one taken changes nothing.
    if (e.filledSize.lte(o.seen) && (e.avgPrice === null || e.filledSize.lte(o.counted))) return;
    const h = this.holding(e.symbol);
    const unpricedBefore = o.seen.sub(o.counted);
    if (e.filledSize.gt(o.seen)) o.seen = e.filledSize;
    if (e.avgPrice !== null && e.filledSize.gt(o.counted)) {
      const value = e.avgPrice.mul(e.filledSize);
      const qty = e.filledSize.sub(o.counted);
      const leg = e.positionSide === 'short' && h.shortLeg ? h.shortLeg : h.net;
      leg.fill(e.side === 'buy' ? qty : qty.neg(), value.sub(o.value));
      o.counted = e.filledSize;
      o.value = value;
    }
    h.unpricedSize = h.unpricedSize.add(o.seen.sub(o.counted)).sub(unpricedBefore);
  }

  private end(clientOid: string): void {
    const o = this.active.get(clientOid);
    if (!o) return;
    this.active.delete(clientOid);
    this.ended.set(clientOid, o);
    if (this.ended.size > RECENT_ENDED) this.ended.delete(this.ended.keys().next().value!);
  }
}
