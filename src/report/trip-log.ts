// The trade list as a run hands it on, in its order: round-trips.csv's lines spilled to a file as they come (a place
// kept for a trip still open is written in when the file is put together), report.json's items written from those
// lines at the end, each strategy's trade stats, the newest trips (the HTML page shows them) and, when asked, the
// closed trips' PnL.
import { closeSync, openSync, readSync } from 'node:fs';
import { Decimal } from '../domain/decimal.js';
import { MAX_TRADES_SHOWN } from './html-tables.js';
import type { TripSink, TripSlot } from './round-trip-books.js';
import { tradeStatsOf, type TradeStats } from './metrics.js';
import { ROUND_TRIPS_CSV_HEADER, roundTripCsvLine, type RoundTrip } from './round-trips.js';
import { ExactSum } from './safe-fixed.js';
import { roundTripOf, SafeTrip, type Trip } from './safe-trip.js';
import { SpillFile, writeAll } from './spill-file.js';
import { TripJsonWriter } from './trip-json.js';

class Slot implements TripSlot {
  trip: Trip | null = null;
  constructor(readonly csvAt: number) {}
}

interface Counts {
  closed: number;
  open: number;
  wins: number;
  /** Gross won and lost, in units of 10^-8 (the trips' PnL has 8 places). */
  won: ExactSum;
  lost: ExactSum;
}

/** A PnL as the list writes it (8 places), in units of 10^-8. */
function pnlUnits(pnl: string): number | bigint {
  // Written with 8 places (finish()): the digits without the point are its units.
  if (pnl.length - pnl.indexOf('.') !== 9) return Decimal.from(pnl).toUnits(8);
  const neg = pnl.charCodeAt(0) === 45;
  if (pnl.length - (neg ? 2 : 1) > 15) return BigInt(pnl.replace('.', ''));
  let n = 0;
  for (let i = neg ? 1 : 0; i < pnl.length; i++) {
    const c = pnl.charCodeAt(i);
    if (c !== 46) n = n * 10 + (c - 48);
  }
  return neg ? -n : n;
}

export class TripLog implements TripSink {
  /** Trips in the list (places kept included). */
  count = 0;
  private readonly csv: SpillFile | undefined;
  /** Where round-trips.csv was put together, once it was. */
  private csvFile: string | undefined;
  private readonly slots: Slot[] = [];
  private readonly byStrategy = new Map<string, Counts>();
  private readonly ring: Array<Trip | Slot> = [];
  private next = 0;
  private readonly closedPnls: Array<Trip | Slot> | undefined;
  private readonly newestKept: number;

  /**
   * `spillTo`: the path prefix of the file the list is spilled to (none: no files are written); `keepPnls`: keep the
   * closed trips' PnL; `newest`: how many of the last trips to keep.
   */
  constructor(opts: { spillTo?: string; keepPnls?: boolean; newest?: number } = {}) {
    this.csv = opts.spillTo === undefined ? undefined : new SpillFile(`${opts.spillTo}.csv.part`);
    this.csv?.write(`${ROUND_TRIPS_CSV_HEADER}\n`);
    this.closedPnls = opts.keepPnls ? [] : undefined;
    this.newestKept = opts.newest ?? MAX_TRADES_SHOWN;
  }

  append(trip: Trip): void {
    this.count++;
    this.tally(trip);
    const csv = this.csv;
    if (csv) {
      if (trip instanceof SafeTrip && trip.csvBytes() <= csv.capacity) csv.commit(trip.putCsv(csv.buffer, csv.room(trip.csvBytes())));
      else csv.write(`${roundTripCsvLine(roundTripOf(trip))}\n`);
    }
    this.keep(trip);
    if (this.closedPnls && trip.exitMs !== null) this.closedPnls.push(trip);
  }

  reserve(): TripSlot {
    this.count++;
    const slot = new Slot(this.csv?.offset() ?? 0);
    this.slots.push(slot);
    this.keep(slot);
    this.closedPnls?.push(slot);
    return slot;
  }

  place(slot: TripSlot, trip: Trip): void {
    slot.trip = trip;
    this.tally(trip);
  }

  /** One strategy's trade stats; without a strategy, every strategy's round trips together (the run's metrics). */
  stats(strategy?: string): TradeStats {
    const all = strategy === undefined ? [...this.byStrategy.values()] : [this.byStrategy.get(strategy)].filter((c) => c !== undefined);
    let [closed, open, wins, won, lost] = [0, 0, 0, Decimal.ZERO, Decimal.ZERO];
    for (const c of all) {
      closed += c.closed;
      open += c.open;
      wins += c.wins;
      won = won.add(Decimal.of(c.won.value(), 8));
      lost = lost.add(Decimal.of(c.lost.value(), 8));
    }
    return tradeStatsOf({ closed, open, wins, won, lost });
  }

  /** The last trips of the list, in its order. */
  newest(): RoundTrip[] {
    const inOrder = this.ring.length < this.newestKept ? this.ring : [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)];
    return inOrder.map((e) => roundTripOf(e instanceof Slot ? e.trip! : e));
  }

  /** The closed trips' PnL in the list's order (kept when asked). */
  pnls(): string[] {
    return (this.closedPnls ?? []).flatMap((e) => {
      const trip = e instanceof Slot ? e.trip! : e;
      return trip.exitMs !== null ? [roundTripOf(trip).pnl] : [];
    });
  }

  /**
   * round-trips.csv, at `file` (the spilled lines moved there, or copied with the kept places' trips written in
   * where they were kept).
   */
  writeCsv(file: string): void {
    if (!this.csv) return;
    this.csvFile = file;
    if (this.slots.length === 0) return this.csv.moveTo(file);
    const fd = openSync(file, 'w');
    try {
      this.pieces((chunk) => writeAll(fd, chunk));
    } finally {
      closeSync(fd);
    }
  }

  /** report.json's items of `trades`, separated as JSON.stringify(report, null, 2) separates them, to `fd`. */
  writeJsonItems(fd: number): void {
    if (!this.csv || this.count === 0) return;
    const json = new TripJsonWriter(fd);
    if (this.csvFile === undefined) this.pieces((chunk) => json.chunk(chunk));
    else {
      const src = openSync(this.csvFile, 'r');
      try {
        const buf = Buffer.allocUnsafe(1 << 18);
        for (let n = readSync(src, buf); n > 0; n = readSync(src, buf)) json.chunk(buf.subarray(0, n));
      } finally {
        closeSync(src);
      }
    }
    json.end();
  }

  /** Removes the spilled file (when not moved into place). */
  discard(): void {
    this.csv?.remove();
  }

  /** round-trips.csv's bytes in order, a chunk at a time: the spilled lines, the kept places' trips where they were kept. */
  private pieces(visit: (chunk: Buffer) => void): void {
    const csv = this.csv!;
    const end = csv.offset();
    let from = 0;
    for (const s of this.slots) {
      if (s.csvAt > from) csv.scan(visit, from, s.csvAt);
      visit(Buffer.from(`${roundTripCsvLine(roundTripOf(s.trip!))}\n`, 'utf8'));
      from = s.csvAt;
    }
    if (end > from) csv.scan(visit, from, end);
  }

  private keep(e: Trip | Slot): void {
    if (this.newestKept === 0) return;
    if (this.ring.length < this.newestKept) this.ring.push(e);
    else {
      this.ring[this.next] = e;
      this.next = (this.next + 1) % this.newestKept;
    }
  }

  private tally(t: Trip): void {
    let c = this.byStrategy.get(t.strategy);
    if (!c) this.byStrategy.set(t.strategy, (c = { closed: 0, open: 0, wins: 0, won: new ExactSum(), lost: new ExactSum() }));
    if (t.exitMs === null) {
      c.open++;
      return;
    }
    c.closed++;
    const pnl = t instanceof SafeTrip ? t.pnlUnits() : pnlUnits(t.pnl);
    if (pnl > 0) {
      c.wins++;
      c.won.add(pnl);
    } else if (pnl < 0) c.lost.add(-pnl);
  }
}
