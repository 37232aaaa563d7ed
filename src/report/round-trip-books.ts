// The trade list (round trips) built one fill at a time as a run goes: the same trips, in the same order, as
// roundTrips() over the whole list of fills. Books per (strategy, symbol, position side) at average cost; MAE/MFE on
// the price samples taken so far (a sample at a fill's own instant counts after it). A closed trip is handed on once
// no trip can come before it in the list's order (by entry, then exit, then the order of the fills that closed them):
// none still open entered earlier, and no fill yet to come is earlier. A trip that stays open long would hold back
// every later one: past `holdBack` waiting, the earliest open trip is given its place in the list (a slot the sink
// fills when it closes) and the others go on.
import { FixedPoint } from './fixed-point.js';
import { isoTime } from './iso-time.js';
import { finish, reduce, unrealized, type Open, type OwnedFill, type PriceSamples, type RoundTrip } from './round-trips.js';

/** A place in the trade list kept for a trip still open, filled once it is final. */
export interface TripSlot {
  trip: RoundTrip | null;
}

/** Where the trips go, in the list's order. */
export interface TripSink {
  /** The next trip of the list. */
  append(trip: RoundTrip): void;
  /** A place at the current end of the list, for a trip that comes before everything appended after it. */
  reserve(): TripSlot;
  /** The trip of a reserved place, once final (closed, or open at the end of the run). */
  place(slot: TripSlot, trip: RoundTrip): void;
}

interface Book extends Open {
  /** The fill that opened it (its number in the run). */
  seq: number;
  slot: TripSlot | null;
}

/** A closed trip waiting for its turn; `seq`: the fill that closed it (an open one at the end: that opened it). */
interface Waiting {
  trip: RoundTrip;
  seq: number;
}

/** The list's order: by entry, then exit (open last), then the fills that closed (or opened) them. */
function byPlace(a: Waiting, b: Waiting): number {
  if (a.trip.entryMs !== b.trip.entryMs) return a.trip.entryMs - b.trip.entryMs;
  const x = a.trip.exitMs ?? Number.POSITIVE_INFINITY;
  const y = b.trip.exitMs ?? Number.POSITIVE_INFINITY;
  return x !== y ? (x < y ? -1 : 1) : a.seq - b.seq;
}

export class RoundTripBooks {
  private places = 0;
  private fx = FixedPoint.forPlaces(0);
  private readonly books = new Map<string, Book>();
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
    const places = Math.max(f.price.scale, f.size.scale, f.fee.scale);
    if (places > this.places) this.widen(places);
    const fx = this.fx;
    const key = `${strategy}\u0000${f.symbol}\u0000${positionSide ?? ''}`;
    const size = fx.of(f.size);
    const price = fx.of(f.price);
    const fee = fx.of(f.fee);
    const signed = f.side === 'buy' ? size : -size;
    let o = this.books.get(key);
    let opening = size;
    let openingFee = fee;
    if (o) {
      if (o.qty < 0n === signed < 0n) {
        const value = fx.mul(price, size);
        o.qty += signed;
        o.cost += value;
        o.openedSize += size;
        o.openedValue += value;
        o.fees += fee;
        o.trip.fills++;
        return;
      }
      const closed = reduce(fx, o, size, price, fee);
      opening = size - closed.closing;
      openingFee = fee - closed.fee;
      if (o.qty !== 0n) return;
      this.close(o, finish(fx, o, f.timestampMs), seq);
      this.books.delete(key);
    }
    if (opening === 0n) return;
    const value = fx.mul(price, opening);
    this.books.set(key, {
      trip: { strategy, symbol: f.symbol, side: signed < 0n ? 'short' : 'long', entryMs: f.timestampMs, entryAt: isoTime(f.timestampMs), fills: 1 },
      qty: signed < 0n ? -opening : opening, cost: value,
      openedSize: opening, openedValue: value, closedSize: 0n, closedValue: 0n,
      realized: 0n, fees: openingFee, mae: 0n, mfe: 0n, seq, slot: null,
    });
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
      if (closed.length <= this.holdBack || !first || first.trip.entryMs >= limitMs || closed[0]!.trip.entryMs <= first.trip.entryMs || this.tiedWith(first)) return;
      first.slot = this.sink.reserve();
    }
  }

  /** The end of the run: the samples left move the open trips, which join the list as they stand. */
  end(): void {
    for (const symbol of Object.keys(this.prices)) this.advance(symbol, Number.POSITIVE_INFINITY);
    const rest = this.closed.splice(0);
    for (const o of this.books.values()) {
      const trip = finish(this.fx, o, null);
      if (o.slot) this.sink.place(o.slot, trip);
      else rest.push({ trip, seq: o.seq });
    }
    this.books.clear();
    for (const w of rest.sort(byPlace)) this.sink.append(w.trip);
  }

  private close(o: Book, trip: RoundTrip, seq: number): void {
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
    for (const o of this.books.values()) if (!o.slot && (!first || o.trip.entryMs < first.trip.entryMs)) first = o;
    return first;
  }

  private tiedWith(first: Book): boolean {
    for (const o of this.books.values()) if (o !== first && !o.slot && o.trip.entryMs === first.trip.entryMs) return true;
    return false;
  }

  /** Samples of `symbol` before `ms` move the MAE/MFE of its open trips. */
  private advance(symbol: string, ms: number): void {
    const series = this.prices[symbol];
    if (!series) return;
    let i = this.cursor.get(symbol) ?? 0;
    for (; i < series.length && series[i]![0] < ms; i++) {
      if (this.books.size === 0) continue;
      const mark = series[i]![1];
      if (mark.scale > this.places) this.widen(mark.scale);
      const price = this.fx.of(mark);
      for (const o of this.books.values()) {
        if (o.trip.symbol !== symbol) continue;
        const u = unrealized(this.fx, o, price);
        if (u < o.mae) o.mae = u;
        if (u > o.mfe) o.mfe = u;
      }
    }
    this.cursor.set(symbol, i);
  }

  private widen(places: number): void {
    const next = FixedPoint.forPlaces(places);
    const k = this.fx.factorTo(next);
    for (const o of this.books.values()) {
      o.qty *= k;
      o.cost *= k;
      o.openedSize *= k;
      o.openedValue *= k;
      o.closedSize *= k;
      o.closedValue *= k;
      o.realized *= k;
      o.fees *= k;
      o.mae *= k;
      o.mfe *= k;
    }
    this.fx = next;
    this.places = places;
  }
}
