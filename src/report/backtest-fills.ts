// A backtest's fills folded as they happen, so that a run keeps no list of them: each execution's trades.csv line
// (spilled to a file), the metrics' totals and fees by kind, each strategy's books, the trade list and the chart
// markers. The strategy a fill belongs to is known once the venue's answer to its order has come back (an order
// filled on arrival fills before that): a fill whose owner is not known yet waits, with the fills of its symbol after
// it, until it is named; the books take each symbol's fills in the order they happened, as over the whole list.
import type { Fill, PositionSide } from '../domain/market.js';
import { ExecutionLedger } from './execution-ledger.js';
import { FillMarkerCounts } from './fill-markers.js';
import type { FillKind } from './futures.js';
import { RoundTripBooks } from './round-trip-books.js';
import type { PriceSamples } from './round-trips.js';
import { SpillFile } from './spill-file.js';
import { StrategyPnlBooks } from './strategy-pnl-books.js';
import { executionCsvBytes, executionCsvLine, putExecutionCsvLine, TRADES_CSV_HEADER } from './trades-csv.js';
import { TripLog } from './trip-log.js';

export interface BacktestFillsOptions {
  /** The futures contracts traded (their executions' fees are counted by kind). */
  futures: ReadonlySet<string>;
  /** The exact price samples per symbol (they grow as the run goes): the trade list's MAE/MFE. */
  marks: PriceSamples;
  /** The charts' price points per symbol (they grow as the run goes): the markers. */
  chart: Readonly<Record<string, ReadonlyArray<readonly [number, number]>>>;
  /** Where the spilled files go (a path prefix); none: nothing is written. */
  spillTo?: string;
  /** Keep the closed trips' PnL (a research job collects them). */
  keepTripPnls?: boolean;
  /** Closed trips an open one may hold back before it is given its place in the list. */
  holdBack?: number;
}

interface Waiting {
  fill: Fill;
  positionSide: PositionSide | null;
  owner: string | undefined;
  /** The fill's number in the run. */
  seq: number;
}

export class BacktestFills {
  readonly ledger: ExecutionLedger;
  readonly strategies = new StrategyPnlBooks();
  readonly trips: TripLog;
  readonly markers: FillMarkerCounts;
  /** trades.csv as far as the executions go: the header, then a line per execution. */
  readonly executions: SpillFile | undefined;
  private readonly books: RoundTripBooks;
  private seq = 0;
  private nowMs = Number.NEGATIVE_INFINITY;
  /** Per symbol: fills not yet booked, in order (the first one's owner is not known). */
  private readonly queues = new Map<string, Waiting[]>();
  /** Fills whose owner is not known, by order id. */
  private readonly unowned = new Map<string, Waiting[]>();

  constructor(opts: BacktestFillsOptions) {
    this.ledger = new ExecutionLedger(opts.futures);
    this.trips = new TripLog({ ...(opts.spillTo !== undefined ? { spillTo: `${opts.spillTo}round-trips` } : {}), keepPnls: opts.keepTripPnls === true });
    this.books = new RoundTripBooks(opts.marks, this.trips, opts.holdBack);
    this.markers = new FillMarkerCounts(opts.chart);
    this.executions = opts.spillTo === undefined ? undefined : new SpillFile(`${opts.spillTo}trades.csv.part`);
    this.executions?.write(`${TRADES_CSV_HEADER}\n`);
  }

  /** A fill as it happens: `kind` how it was made (futures), `owner` its strategy when known now. */
  fill(f: Fill, kind: FillKind | undefined, owner: string | undefined): void {
    this.nowMs = Math.max(this.nowMs, f.timestampMs);
    const ledger = this.ledger;
    ledger.record(f, kind);
    const spill = this.executions;
    if (spill) {
      const bytes = executionCsvBytes(f) + ledger.realizedBytes();
      if (bytes <= spill.capacity) spill.commit(putExecutionCsvLine(spill.buffer, spill.room(bytes), f, ledger, kind));
      else spill.write(`${executionCsvLine(f, ledger.realizedText(), kind)}\n`);
    }
    this.markers.fill(f.symbol, Math.floor(f.timestampMs / 1000), f.side);
    const w: Waiting = { fill: f, positionSide: kind?.positionSide ?? null, owner, seq: this.seq++ };
    let queue = this.queues.get(f.symbol);
    if (owner !== undefined && (!queue || queue.length === 0)) this.book(w);
    else {
      if (!queue) this.queues.set(f.symbol, (queue = []));
      queue.push(w);
      if (owner === undefined) {
        const ofOrder = this.unowned.get(f.orderId);
        if (ofOrder) ofOrder.push(w);
        else this.unowned.set(f.orderId, [w]);
      }
    }
    this.release();
  }

  /** The strategy of venue order `orderId` is known (`nowMs`: the time now). */
  resolve(orderId: string, owner: string, nowMs: number): void {
    this.nowMs = Math.max(this.nowMs, nowMs);
    const waiting = this.unowned.get(orderId);
    if (!waiting) return;
    this.unowned.delete(orderId);
    for (const w of waiting) w.owner = owner;
    if (waiting.length === 1) this.drain(waiting[0]!.fill.symbol);
    else for (const symbol of new Set(waiting.map((w) => w.fill.symbol))) this.drain(symbol);
    this.release();
  }

  /** Asks `lookup` for the owners of fills waiting since before `beforeMs` (an order whose answer went by unseen). */
  settle(lookup: (orderId: string) => string | undefined, beforeMs: number, nowMs: number): void {
    if (this.unowned.size === 0) return;
    for (const [orderId, waiting] of [...this.unowned]) {
      if (waiting[0]!.fill.timestampMs >= beforeMs) continue;
      const owner = lookup(orderId);
      if (owner !== undefined) this.resolve(orderId, owner, nowMs);
    }
  }

  /** The end of the run: the owners still unknown are what `ownerOf` says; every fill is booked, every trip listed. */
  finish(ownerOf: (orderId: string) => string): void {
    for (const [orderId, waiting] of this.unowned) {
      const owner = ownerOf(orderId);
      for (const w of waiting) w.owner = owner;
    }
    this.unowned.clear();
    for (const symbol of this.queues.keys()) this.drain(symbol);
    this.books.end();
  }

  /** Removes the spilled files not moved into place. */
  discard(): void {
    this.executions?.remove();
    this.trips.discard();
  }

  private drain(symbol: string): void {
    const queue = this.queues.get(symbol)!;
    let n = 0;
    while (n < queue.length && queue[n]!.owner !== undefined) this.book(queue[n++]!);
    if (n > 0) queue.splice(0, n);
  }

  private book(w: Waiting): void {
    this.strategies.fill(w.owner!, w.fill);
    this.books.fill({ fill: w.fill, strategy: w.owner!, positionSide: w.positionSide }, w.seq);
  }

  /** The trips nothing can come before any more go on to the list: no fill to be booked is earlier than the limit. */
  private release(): void {
    if (!this.books.holding) return;
    let limitMs = this.nowMs;
    for (const queue of this.queues.values()) if (queue.length > 0 && queue[0]!.fill.timestampMs < limitMs) limitMs = queue[0]!.fill.timestampMs;
    this.books.release(limitMs);
  }
}
