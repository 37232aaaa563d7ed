// The trade list (round trips) built one fill at a time as a run goes: the same trips, in the same order, as
// roundTrips() over the whole list of fills. Books per (strategy, symbol, position side) at average cost; MAE/MFE on
// the price samples taken so far (a sample at a fill's own instant counts after it). A closed trip is handed on once
// no trip can come before it in the list's order (by entry, then exit, then the order of the fills that closed them):
// none still open entered earlier, and no fill yet to come is earlier. A trip that stays open long would hold back
// every later one: past `holdBack` waiting, the earliest open trip is given its place in the list (a slot the sink
// fills when it closes) and the others go on. A trip's amounts are safe integers while they fit (safe-trip.ts), BigInt
// from the fill or sample they did not (round-trips.ts); a trip handed on as safe integers is written out when asked.
import type { Fill } from '../domain/market.js';
import { extend, finish, reduce, unrealized, type Open, type OwnedFill, type PriceSamples } from './round-trips.js';
import { add, BookScale, sub } from './safe-fixed.js';
import { finishSafe, reduceSafe, unrealizedSafe, type SafeOpen, type Trip } from './safe-trip.js';

/** A place in the trade list kept for a trip still open, filled once it is final. */
export interface TripSlot {
  trip: Trip | null;
}

/** Where the trips go, in the list's order. */
export interface TripSink {
  /** The next trip of the list. */
  append(trip: Trip): void;
  /** A place at the current end of the list, for a trip that comes before everything appended after it. */
  reserve(): TripSlot;
  /** The trip of a reserved place, once final (closed, or open at the end of the run). */
  place(slot: TripSlot, trip: Trip): void;
}

/** A trip open in its book: its amounts in safe integers while they fit, in BigInt (`big`) from when one did not. */
interface Book extends SafeOpen {
  /** The fill that opened it (its number in the run). */
  seq: number;
  slot: TripSlot | null;
  /** The amounts in units of the scale's FixedPoint, once one did not fit (the safe ones are not read then). */
  big: Open | null;
}

/** The books of a strategy's symbol, by position side (net: spot, one holding that may flip). */
interface Sides {
  net: Book | undefined;
  long: Book | undefined;
  short: Book | undefined;
}

/** A closed trip waiting for its turn; `seq`: the fill that closed it (an open one at the end: that opened it). */
interface Waiting {
  trip: Trip;
  seq: number;
}

/** The list's order: by entry, then exit (open last), then the fills that closed (or opened) them. */
function byPlace(a: Waiting, b: Waiting): number {
  if (a.trip.entryMs !== b.trip.entryMs) return a.trip.entryMs - b.trip.entryMs;
  const x = a.trip.exitMs ?? Number.POSITIVE_INFINITY;
  const y = b.trip.exitMs ?? Number.POSITIVE_INFINITY;
  return x !== y ? (x < y ? -1 : 1) : a.seq - b.seq;
}

/** Of two fills' amounts as a fill opens a trip: in safe units, or in BigInt units. */
type Opening = { safe: true; size: number; fee: number } | { safe: false; size: bigint; fee: bigint };

export class RoundTripBooks {
  private readonly scale = new BookScale();
  /** The open trips' books, by strategy and symbol. */
  private readonly index = new Map<string, Map<string, Sides>>();
  private readonly open = new Set<Book>();
  /** Per symbol: how far its samples have been read. */
  private readonly cursor = new Map<string, number>();
  /** Closed trips not yet handed on, in the list's order. */
  private readonly closed: Waiting[] = [];

  /** `prices`: the run's price samples per symbol, in time order (they grow as it goes). */
  constructor(
    private readonly prices: PriceSamples,
    private readonly sink: TripSink,
    private readonly holdBack = 256,
  ) {}

  /** Books a fill, `seq` its number in the run (fills of one symbol come in that order). */
  fill(owned: OwnedFill, seq: number): void {
    const { fill: f, strategy, positionSide } = owned;
    // A sample at a fill's own instant is taken after it: read the samples before it first.
    this.advance(f.symbol, f.timestampMs);
    const scale = this.scale;
    const places = Math.max(f.price.scale, f.size.scale, f.fee.scale);
    if (places > scale.places) this.widen(places);
    const sides = this.sidesOf(strategy, f.symbol);
    const side = positionSide ?? 'net';
    const o = sides[side];
    const selling = f.side !== 'buy';
    const sf = scale.sf;
    const size = sf.of(f.size);
    const fee = sf.of(f.fee);
    if (!o) {
      if (!f.size.isZero()) this.start(f, strategy, sides, side, selling, seq, size === size && fee === fee ? { safe: true, size, fee } : this.bigOpening(f));
      return;
    }
    if (o.big === null && size === size && fee === fee) {
      if (o.qty < 0 === selling) {
        const value = sf.product(f.price, f.size);
        const qty = add(o.qty, selling ? -size : size);
        const cost = add(o.cost, value);
        const openedSize = add(o.openedSize, size);
        const openedValue = add(o.openedValue, value);
        const fees = add(o.fees, fee);
        if (!Number.isNaN(qty + cost + openedSize + openedValue + fees)) {
          o.qty = qty;
          o.cost = cost;
          o.openedSize = openedSize;
          o.openedValue = openedValue;
          o.fees = fees;
          o.trip.fills++;
          return;
        }
      } else {
        const held = o.qty < 0 ? -o.qty : o.qty;
        const closingFee = reduceSafe(sf, o, size, f.price, fee);
        if (closingFee === closingFee) {
          if (o.qty !== 0) return;
          this.close(o, finishSafe(sf, o, f.timestampMs) ?? finish(scale.fx, this.toBig(o), f.timestampMs), seq);
          this.remove(o, sides, side);
          if (size > held) this.start(f, strategy, sides, side, selling, seq, { safe: true, size: size - held, fee: sub(fee, closingFee) });
          return;
        }
      }
    }
    this.fillBig(f, strategy, sides, side, selling, seq, this.toBig(o));
  }

  /** Whether closed trips wait to be handed on (release() has something to do). */
  get holding(): boolean {
    return this.closed.length > 0;
  }

  /**
   * Hands on the closed trips nothing can come before any more: `limitMs` is the earliest time a fill still to be
   * booked may carry (the time now, or that of the earliest fill waiting for its owner).
   */
  release(limitMs: number): void {
    const closed = this.closed;
    while (closed.length > 0) {
      const first = this.earliestOpen();
      const bound = first && first.trip.entryMs < limitMs ? first.trip.entryMs : limitMs;
      let n = 0;
      while (n < closed.length && closed[n]!.trip.entryMs < bound) this.sink.append(closed[n++]!.trip);
      if (n > 0) closed.splice(0, n);
      // Held back by an open trip (not by fills still to come, not by a tie): give it its place now.
      if (closed.length <= this.holdBack || !first || first.trip.entryMs >= limitMs || closed[0]!.trip.entryMs <= first.trip.entryMs || this.tiedWith(first))
        return;
      first.slot = this.sink.reserve();
    }
  }

  /** The end of the run: the samples left move the open trips, which join the list as they stand. */
  end(): void {
    for (const symbol of Object.keys(this.prices)) this.advance(symbol, Number.POSITIVE_INFINITY);
    const rest = this.closed.splice(0);
    for (const o of this.open) {
      const trip = (o.big === null ? finishSafe(this.scale.sf, o, null) : null) ?? finish(this.scale.fx, this.toBig(o), null);
      if (o.slot) this.sink.place(o.slot, trip);
      else rest.push({ trip, seq: o.seq });
    }
    this.open.clear();
    this.index.clear();
    for (const w of rest.sort(byPlace)) this.sink.append(w.trip);
  }

  /** A fill into a trip whose amounts are held in BigInt. */
  private fillBig(f: Fill, strategy: string, sides: Sides, side: keyof Sides, selling: boolean, seq: number, o: Open): void {
    const fx = this.scale.fx;
    const size = fx.of(f.size);
    const price = fx.of(f.price);
    const fee = fx.of(f.fee);
    if (o.qty < 0n === selling) {
      extend(fx, o, size, selling ? -size : size, price, fee);
      return;
    }
    const closed = reduce(fx, o, size, price, fee);
    if (o.qty !== 0n) return;
    const book = sides[side]!;
    this.close(book, finish(fx, o, f.timestampMs), seq);
    this.remove(book, sides, side);
    if (size !== closed.closing) this.start(f, strategy, sides, side, selling, seq, { safe: false, size: size - closed.closing, fee: fee - closed.fee });
  }

  /** A trip opened by (what is left of) a fill: its size and fee in safe units (not NaN), or in BigInt units. */
  private start(f: Fill, strategy: string, sides: Sides, side: keyof Sides, selling: boolean, seq: number, opening: Opening): void {
    const trip = { strategy, symbol: f.symbol, side: selling ? ('short' as const) : ('long' as const), entryMs: f.timestampMs, fills: 1 };
    const o: Book = {
      trip,
      qty: 0,
      cost: 0,
      openedSize: 0,
      openedValue: 0,
      closedSize: 0,
      closedValue: 0,
      realized: 0,
      fees: 0,
      mae: 0,
      mfe: 0,
      seq,
      slot: null,
      big: null,
    };
    const scale = this.scale;
    if (opening.safe) {
      const value = scale.sf.times(opening.size, f.price);
      if (value === value) {
        o.qty = selling ? -opening.size : opening.size;
        o.cost = value;
        o.openedSize = opening.size;
        o.openedValue = value;
        o.fees = opening.fee;
        sides[side] = o;
        this.open.add(o);
        return;
      }
      opening = { safe: false, size: scale.big(opening.size), fee: scale.big(opening.fee) };
    }
    const { size, fee } = opening;
    const value = scale.fx.mul(scale.fx.of(f.price), size);
    o.big = {
      trip,
      qty: selling ? -size : size,
      cost: value,
      openedSize: size,
      openedValue: value,
      closedSize: 0n,
      closedValue: 0n,
      realized: 0n,
      fees: fee,
      mae: 0n,
      mfe: 0n,
    };
    sides[side] = o;
    this.open.add(o);
  }

  /** A fill's size and fee in BigInt units. */
  private bigOpening(f: Fill): Opening {
    return { safe: false, size: this.scale.fx.of(f.size), fee: this.scale.fx.of(f.fee) };
  }

  /** The trip's amounts in BigInt from now on (those it holds already, when it did). */
  private toBig(o: Book): Open {
    if (o.big) return o.big;
    const scale = this.scale;
    return (o.big = {
      trip: o.trip,
      qty: scale.big(o.qty),
      cost: scale.big(o.cost),
      openedSize: scale.big(o.openedSize),
      openedValue: scale.big(o.openedValue),
      closedSize: scale.big(o.closedSize),
      closedValue: scale.big(o.closedValue),
      realized: scale.big(o.realized),
      fees: scale.big(o.fees),
      mae: scale.big(o.mae),
      mfe: scale.big(o.mfe),
    });
  }

  private sidesOf(strategy: string, symbol: string): Sides {
    let bySymbol = this.index.get(strategy);
    if (!bySymbol) this.index.set(strategy, (bySymbol = new Map<string, Sides>()));
    let sides = bySymbol.get(symbol);
    if (!sides) bySymbol.set(symbol, (sides = { net: undefined, long: undefined, short: undefined }));
    return sides;
  }

  private remove(o: Book, sides: Sides, side: keyof Sides): void {
    sides[side] = undefined;
    this.open.delete(o);
  }

  private close(o: Book, trip: Trip, seq: number): void {
    if (o.slot) return this.sink.place(o.slot, trip);
    const w = { trip, seq };
    const closed = this.closed;
    let i = closed.length;
    while (i > 0 && byPlace(closed[i - 1]!, w) > 0) i--;
    closed.splice(i, 0, w);
  }

  /** The open trip without a place that entered first. */
  private earliestOpen(): Book | undefined {
    let first: Book | undefined;
    for (const o of this.open) if (!o.slot && (!first || o.trip.entryMs < first.trip.entryMs)) first = o;
    return first;
  }

  private tiedWith(first: Book): boolean {
    for (const o of this.open) if (o !== first && !o.slot && o.trip.entryMs === first.trip.entryMs) return true;
    return false;
  }

  /** Samples of `symbol` before `ms` move the MAE/MFE of its open trips. */
  private advance(symbol: string, ms: number): void {
    const series = this.prices[symbol];
    if (!series) return;
    let i = this.cursor.get(symbol) ?? 0;
    for (; i < series.length && series[i]![0] < ms; i++) {
      if (this.open.size === 0) continue;
      const mark = series[i]![1];
      if (mark.scale > this.scale.places) this.widen(mark.scale);
      for (const o of this.open) {
        if (o.trip.symbol !== symbol) continue;
        if (o.big === null) {
          const u = unrealizedSafe(this.scale.sf, o, mark);
          if (u === u) {
            if (u < o.mae) o.mae = u;
            if (u > o.mfe) o.mfe = u;
            continue;
          }
        }
        const big = this.toBig(o);
        const u = unrealized(this.scale.fx, big, this.scale.fx.of(mark));
        if (u < big.mae) big.mae = u;
        if (u > big.mfe) big.mfe = u;
      }
    }
    this.cursor.set(symbol, i);
  }

  private widen(places: number): void {
    const scale = this.scale;
    scale.widen(places);
    const k = scale.bigFactor;
    for (const o of this.open) {
      const big = o.big;
      if (big) {
        big.qty *= k;
        big.cost *= k;
        big.openedSize *= k;
        big.openedValue *= k;
        big.closedSize *= k;
        big.closedValue *= k;
        big.realized *= k;
        big.fees *= k;
        big.mae *= k;
        big.mfe *= k;
        continue;
      }
      const w = scale.widened.bind(scale);
      const next = [
        w(o.qty),
        w(o.cost),
        w(o.openedSize),
        w(o.openedValue),
        w(o.closedSize),
        w(o.closedValue),
        w(o.realized),
        w(o.fees),
        w(o.mae),
        w(o.mfe),
      ] as const;
      if (next.some((x) => x !== x)) {
        const b = scale.bigBefore.bind(scale);
        o.big = {
          trip: o.trip,
          qty: b(o.qty),
          cost: b(o.cost),
          openedSize: b(o.openedSize),
          openedValue: b(o.openedValue),
          closedSize: b(o.closedSize),
          closedValue: b(o.closedValue),
          realized: b(o.realized),
          fees: b(o.fees),
          mae: b(o.mae),
          mfe: b(o.mfe),
        };
      } else [o.qty, o.cost, o.openedSize, o.openedValue, o.closedSize, o.closedValue, o.realized, o.fees, o.mae, o.mfe] = next;
    }
  }
}
