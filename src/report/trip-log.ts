// The trade list as a run hands it on, in its order: report.json's items and round-trips.csv's lines spilled to files
// as they come (a place kept for a trip still open is written in when the files are put together), each strategy's
// trade stats, the newest trips (the HTML page shows them) and, when asked, the closed trips' PnL.
import { closeSync, openSync } from 'node:fs';
import { Decimal } from '../domain/decimal.js';
import { MAX_TRADES_SHOWN } from './html-tables.js';
import type { TripSink, TripSlot } from './round-trip-books.js';
import { ROUND_TRIPS_CSV_HEADER, roundTripCsvLine, tradeStatsOf, type RoundTrip, type TradeStats } from './round-trips.js';
import { SpillFile, writeAll } from './spill-file.js';

/**
 * A trip as JSON.stringify(report, null, 2) writes an item of report.json's `trades` (two levels deep), followed by
 * the separator of the next item.
 */
export function tripJsonItem(t: RoundTrip): string {
  const text = (s: string | null) => (s === null ? 'null' : `"${s}"`);
  return `    {
      "strategy": ${JSON.stringify(t.strategy)},
      "symbol": ${JSON.stringify(t.symbol)},
      "side": "${t.side}",
      "entryMs": ${t.entryMs},
      "entryAt": "${t.entryAt}",
      "fills": ${t.fills},
      "entryPrice": "${t.entryPrice}",
      "exitMs": ${t.exitMs},
      "exitAt": ${text(t.exitAt)},
      "exitPrice": ${text(t.exitPrice)},
      "durationMs": ${t.durationMs},
      "size": "${t.size}",
      "pnl": "${t.pnl}",
      "fees": "${t.fees}",
      "mae": "${t.mae}",
      "mfe": "${t.mfe}"
    },
`;
}

class Slot implements TripSlot {
  trip: RoundTrip | null = null;
  constructor(
    readonly jsonAt: number,
    readonly csvAt: number,
  ) {}
}

interface Counts {
  closed: number;
  open: number;
  wins: number;
  /** Gross won and lost, in units of 10^-8 (the trips' PnL has 8 places). */
  won: bigint;
  lost: bigint;
}

export class TripLog implements TripSink {
  /** Trips in the list (places kept included). */
  count = 0;
  private readonly files: { json: SpillFile; csv: SpillFile } | undefined;
  private readonly slots: Slot[] = [];
  private readonly byStrategy = new Map<string, Counts>();
  private readonly ring: Array<RoundTrip | Slot> = [];
  private next = 0;
  private readonly closedPnls: Array<string | Slot> | undefined;
  private readonly newestKept: number;

  /**
   * `spillTo`: the path prefix of the files the list is spilled to (none: no files are written); `keepPnls`: keep the
   * closed trips' PnL; `newest`: how many of the last trips to keep.
   */
  constructor(opts: { spillTo?: string; keepPnls?: boolean; newest?: number } = {}) {
    this.files = opts.spillTo === undefined ? undefined : { json: new SpillFile(`${opts.spillTo}.json.part`), csv: new SpillFile(`${opts.spillTo}.csv.part`) };
    this.files?.csv.write(`${ROUND_TRIPS_CSV_HEADER}\n`);
    this.closedPnls = opts.keepPnls ? [] : undefined;
    this.newestKept = opts.newest ?? MAX_TRADES_SHOWN;
  }

  append(trip: RoundTrip): void {
    this.count++;
    this.tally(trip);
    if (this.files) {
      this.files.json.write(tripJsonItem(trip));
      this.files.csv.write(`${roundTripCsvLine(trip)}\n`);
    }
    this.keep(trip);
    if (this.closedPnls && trip.exitMs !== null) this.closedPnls.push(trip.pnl);
  }

  reserve(): TripSlot {
    this.count++;
    const slot = new Slot(this.files?.json.offset() ?? 0, this.files?.csv.offset() ?? 0);
    this.slots.push(slot);
    this.keep(slot);
    this.closedPnls?.push(slot);
    return slot;
  }

  place(slot: TripSlot, trip: RoundTrip): void {
    slot.trip = trip;
    this.tally(trip);
  }

  /** One strategy's trade stats. */
  stats(strategy: string): TradeStats {
    const c = this.byStrategy.get(strategy) ?? { closed: 0, open: 0, wins: 0, won: 0n, lost: 0n };
    return tradeStatsOf({ closed: c.closed, open: c.open, wins: c.wins, won: Decimal.of(c.won, 8), lost: Decimal.of(c.lost, 8) });
  }

  /** The last trips of the list, in its order. */
  newest(): RoundTrip[] {
    const inOrder = this.ring.length < this.newestKept ? this.ring : [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)];
    return inOrder.map((e) => (e instanceof Slot ? e.trip! : e));
  }

  /** The closed trips' PnL in the list's order (kept when asked). */
  pnls(): string[] {
    return (this.closedPnls ?? []).flatMap((e) => (e instanceof Slot ? (e.trip!.exitMs !== null ? [e.trip!.pnl] : []) : [e]));
  }

  /** report.json's items of `trades`, separated as JSON.stringify(report, null, 2) separates them, to `fd`. */
  writeJsonItems(fd: number): void {
    if (!this.files || this.count === 0) return;
    const pieces = this.pieces(this.files.json, (s) => s.jsonAt, tripJsonItem);
    // The last item takes no separator (",\n").
    const i = pieces.length - 1;
    const last = pieces[i]!;
    pieces[i] = typeof last === 'string' ? last.slice(0, -2) : [last[0], last[1] - 2];
    this.write(fd, this.files.json, pieces);
  }

  /** round-trips.csv, at `file`. */
  writeCsv(file: string): void {
    if (!this.files) return;
    if (this.slots.length === 0) return this.files.csv.moveTo(file);
    const fd = openSync(file, 'w');
    try {
      this.write(fd, this.files.csv, this.pieces(this.files.csv, (s) => s.csvAt, (t) => `${roundTripCsvLine(t)}\n`));
    } finally {
      closeSync(fd);
    }
  }

  /** Removes the spilled files (those not moved into place). */
  discard(): void {
    this.files?.json.remove();
    this.files?.csv.remove();
  }

  /** A spilled file as ranges of its bytes ([from, to)) with the kept places' trips (text) where they were kept. */
  private pieces(spill: SpillFile, at: (s: Slot) => number, text: (t: RoundTrip) => string): Array<[number, number] | string> {
    const out: Array<[number, number] | string> = [];
    let from = 0;
    for (const s of this.slots) {
      if (at(s) > from) out.push([from, at(s)]);
      out.push(text(s.trip!));
      from = at(s);
    }
    const end = spill.offset();
    if (end > from) out.push([from, end]);
    return out;
  }

  private write(fd: number, spill: SpillFile, pieces: Array<[number, number] | string>): void {
    for (const p of pieces) {
      if (typeof p === 'string') writeAll(fd, Buffer.from(p, 'utf8'));
      else spill.copyTo(fd, p[0], p[1]);
    }
  }

  private keep(e: RoundTrip | Slot): void {
    if (this.newestKept === 0) return;
    if (this.ring.length < this.newestKept) this.ring.push(e);
    else {
      this.ring[this.next] = e;
      this.next = (this.next + 1) % this.newestKept;
    }
  }

  private tally(t: RoundTrip): void {
    let c = this.byStrategy.get(t.strategy);
    if (!c) this.byStrategy.set(t.strategy, (c = { closed: 0, open: 0, wins: 0, won: 0n, lost: 0n }));
    if (t.exitMs === null) {
      c.open++;
      return;
    }
    c.closed++;
    // Written with 8 places (finish()): the digits without the point are its units.
    const pnl = t.pnl.length - t.pnl.indexOf('.') === 9 ? BigInt(t.pnl.replace('.', '')) : Decimal.from(t.pnl).toUnits(8);
    if (pnl > 0n) {
      c.wins++;
      c.won += pnl;
    } else if (pnl < 0n) c.lost -= pnl;
  }
}
