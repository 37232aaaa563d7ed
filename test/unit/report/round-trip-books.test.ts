// The trade list built one fill at a time is roundTrips() over the whole list: the same trips (MAE/MFE on the samples
// taken so far) in the same order, whether closed trips are handed on at once or wait behind a trip held open (which
// is given its place in the list once too many wait), and whatever order the symbols' fills are booked in.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../src/domain/decimal.js';
import type { Fill } from '../../../src/domain/market.js';
import { RoundTripBooks, type TripSink, type TripSlot } from '../../../src/report/round-trip-books.js';
import { roundTrips, type OwnedFill, type PriceSamples, type RoundTrip } from '../../../src/report/round-trips.js';
import { roundTripOf, type Trip } from '../../../src/report/safe-trip.js';
import { beyondSafe, randomRun, takeSample } from './random-run.js';

const d = (s: string) => Decimal.from(s);

/** A sink that keeps the list as handed on, places kept included. */
class ListSink implements TripSink {
  readonly entries: Array<Trip | TripSlot> = [];
  reserved = 0;
  append(trip: Trip): void {
    this.entries.push(trip);
  }
  reserve(): TripSlot {
    const slot: TripSlot = { trip: null };
    this.reserved++;
    this.entries.push(slot);
    return slot;
  }
  place(slot: TripSlot, trip: Trip): void {
    slot.trip = trip;
  }
  list(): RoundTrip[] {
    return this.entries.map((e) => roundTripOf('strategy' in e ? e : e.trip!));
  }
}

let id = 0;
const fill = (timestampMs: number, side: 'buy' | 'sell', price: string, size: string, strategy: string, fee = '0'): OwnedFill => {
  const f: Fill = {
    symbol: 'X',
    orderId: String(++id),
    fillId: String(id),
    side,
    price: d(price),
    size: d(size),
    amount: d(price).mul(d(size)),
    fee: d(fee),
    timestampMs,
  };
  return { fill: f, strategy, positionSide: null };
};

describe('RoundTripBooks', () => {
  it('a trip held open holds back the later ones until too many wait, then takes its place in the list', () => {
    const fills = [fill(0, 'buy', '10', '1', 'holder', '0.01')];
    for (let i = 1; i <= 10; i++) fills.push(fill(i * 10, 'buy', `${10 + i}`, '1', 'trader'), fill(i * 10 + 5, 'sell', `${11 + i}`, '1', 'trader', '0.02'));
    fills.push(fill(200, 'sell', '30', '1', 'holder'));
    const prices: PriceSamples = {
      X: [
        [3, d('9')],
        [50, d('12.5')],
        [150, d('40')],
      ],
    };
    const sink = new ListSink();
    const books = new RoundTripBooks(prices, sink, 3);
    fills.forEach((f, i) => {
      books.fill(f, i);
      books.release(f.fill.timestampMs + 1);
    });
    // The holder's trip got its place once a fourth trip waited behind it; the rest went on as they closed.
    expect(sink.reserved).toBe(1);
    expect(sink.entries.length).toBe(1 + 10);
    books.end();
    expect(sink.list()).toEqual(roundTrips(fills, prices));
    expect(sink.list()[0]).toMatchObject({ strategy: 'holder', exitMs: 200, mae: '-1.00000000', mfe: '30.00000000' });
  });

  it.each([
    [1, 256, false],
    [2, 256, false],
    [3, 0, false],
    [4, 1, false],
    [5, 2, false],
    [6, 0, false],
    [7, 5, false],
    [8, 1, false],
    [9, 256, true],
    [10, 1, true],
    [11, 0, true],
  ])(
    'seed %i, %i held back (amounts beyond 2^53: %s): the list of a random run, samples taken as it goes, symbols booked out of step',
    (seed, holdBack, huge) => {
      const run = randomRun(seed, 900, { strategies: ['s1', 's2', 's3'], huge });
      expect(beyondSafe(run)).toBe(huge);
      const owned = run.fills.map((f): OwnedFill => ({
        fill: f,
        strategy: run.owners.get(f.orderId)!,
        positionSide: run.kinds.get(f.fillId)?.positionSide ?? null,
      }));
      const expected = roundTrips(owned, run.marks);
      expect(expected.filter((t) => t.exitMs === null).length).toBeGreaterThan(0);
      expect(new Set(expected.map((t) => t.side)).size).toBe(2);

      // The run as it goes: samples come in, and one symbol's fills (B's) are booked only every so often, in order.
      const marks: Record<string, Array<[number, Decimal]>> = {};
      const chart: Record<string, Array<[number, number]>> = {};
      const sink = new ListSink();
      const books = new RoundTripBooks(marks, sink, holdBack);
      const held: Array<[OwnedFill, number]> = [];
      let seq = 0;
      let nowMs = 0;
      const bookHeld = () => held.splice(0).forEach(([f, n]) => books.fill(f, n));
      const limit = () => Math.min(nowMs, held[0]?.[0].fill.timestampMs ?? Number.POSITIVE_INFINITY);
      for (const e of run.events) {
        if (e.type === 'resolve') continue;
        nowMs = e.type === 'sample' ? e.ms : e.fill.timestampMs;
        if (e.type === 'sample') takeSample(marks, chart, e.symbol, e.ms, e.price);
        else {
          const f: OwnedFill = { fill: e.fill, strategy: e.owner, positionSide: e.kind?.positionSide ?? null };
          if (e.fill.symbol === 'B') held.push([f, seq++]);
          else books.fill(f, seq++);
          if (held.length > 4) bookHeld();
        }
        books.release(limit());
      }
      bookHeld();
      books.end();
      expect(sink.list()).toEqual(expected);
      if (holdBack === 0) expect(sink.reserved).toBeGreaterThan(0);
    },
  );
});

describe('RoundTripBooks, places', () => {
  it('fills and samples of more places than a safe scale holds (beyond 18): the trips the whole list gives', () => {
    const fills = [
      fill(0, 'buy', '10', '1', 's', '0.01'),
      fill(10, 'sell', '11', '1', 's', '0.01'),
      fill(20, 'buy', '10.5', '2', 's'),
      fill(30, 'buy', '10.00000000000000000001', '1', 's', '0.00000000000000000003'),
      fill(40, 'sell', '12', '3', 's'),
      fill(50, 'sell', '12', '1', 's'),
      fill(60, 'buy', '11', '1', 's'),
    ];
    const prices: PriceSamples = {
      X: [
        [5, d('10.2')],
        [35, d('9.000000000000000000001')],
        [55, d('12.5')],
      ],
    };
    const sink = new ListSink();
    const books = new RoundTripBooks(prices, sink, 256);
    fills.forEach((f, i) => books.fill(f, i));
    books.end();
    expect(sink.list()).toEqual(roundTrips(fills, prices));
    expect(sink.list().length).toBe(3);
  });
});

describe('RoundTripBooks, ties', () => {
  it('a trip closed while a fill of its instant waits is not handed on: the waiting one may come first', () => {
    const at = (symbol: string, timestampMs: number, side: 'buy' | 'sell', n: number): OwnedFill => {
      const f: Fill = { symbol, orderId: `t${n}`, fillId: `t${n}`, side, price: d('10'), size: d('1'), amount: d('10'), fee: d('0'), timestampMs };
      return { fill: f, strategy: 's', positionSide: null };
    };
    // A's trip and B's open at 10; B's closes at 12, A's at 15; B's fills are booked late.
    const fills = [at('A', 10, 'buy', 0), at('B', 10, 'buy', 1), at('B', 12, 'sell', 2), at('A', 15, 'sell', 3)];
    const sink = new ListSink();
    const books = new RoundTripBooks({}, sink, 256);
    books.fill(fills[0]!, 0);
    books.fill(fills[3]!, 3);
    books.release(10); // B's open (at 10) waits
    expect(sink.entries).toEqual([]);
    books.fill(fills[1]!, 1);
    books.fill(fills[2]!, 2);
    books.release(16);
    books.end();
    expect(sink.list()).toEqual(roundTrips(fills));
    expect(sink.list().map((t) => t.symbol)).toEqual(['B', 'A']);
  });
});
