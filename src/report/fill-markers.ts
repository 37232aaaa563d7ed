// The fills of a run counted for the price charts' markers as they happen, so that a run keeps counts per point of
// the chart rather than its fills: the same markers fillMarkers() gives over the whole list. A fill goes on the point
// at or before it, which is known once the series has a point at or after the fill's second (points are one per
// second at most); until then the fill waits, merged with those of its second and side.
import type { Side } from '../domain/order.js';
import { groupMarkers, snapToPoint, type Marker } from './html.js';

type Points = ReadonlyArray<readonly [number, number]>;

interface SymbolFills {
  total: number;
  /** Fills not yet on a point: [second, side, count], in time order. */
  waiting: Array<[number, Side, number]>;
  /** Per point (its time): the fills on it, buys and sells. */
  onPoint: Map<number, [number, number]>;
}

export class FillMarkerCounts {
  private readonly bySymbol = new Map<string, SymbolFills>();

  /** `points`: the charts' price points per symbol ([time s, price], in time order; they grow as the run goes). */
  constructor(private readonly points: Readonly<Record<string, Points>>) {}

  /** A fill at `timeSec` (whole seconds); fills come in time order. */
  fill(symbol: string, timeSec: number, side: Side): void {
    let s = this.bySymbol.get(symbol);
    if (!s) this.bySymbol.set(symbol, (s = { total: 0, waiting: [], onPoint: new Map() }));
    s.total++;
    this.place(symbol, s, false);
    const last = s.waiting[s.waiting.length - 1];
    if (last && last[0] === timeSec && last[1] === side) last[2]++;
    else s.waiting.push([timeSec, side, 1]);
  }

  /** The markers of every symbol with price points, in the order of `points`' symbols. */
  markers(): Record<string, Marker[]> {
    const out: Record<string, Marker[]> = {};
    for (const [symbol, points] of Object.entries(this.points)) {
      const s = this.bySymbol.get(symbol);
      if (!s || points.length === 0) {
        out[symbol] = [];
        continue;
      }
      this.place(symbol, s, true);
      const counts: Array<[number, Side, number]> = [];
      for (const t of [...s.onPoint.keys()].sort((a, b) => a - b)) {
        const [buys, sells] = s.onPoint.get(t)!;
        if (buys > 0) counts.push([t, 'buy', buys]);
        if (sells > 0) counts.push([t, 'sell', sells]);
      }
      out[symbol] = groupMarkers(points, counts, s.total);
    }
    return out;
  }

  /** Puts the waiting fills on their points: those whose point is known, or all of them (`all`: the run is over). */
  private place(symbol: string, s: SymbolFills, all: boolean): void {
    const points = this.points[symbol];
    if (!points || points.length === 0 || s.waiting.length === 0) return;
    const lastSec = points[points.length - 1]![0];
    let k = 0;
    for (; k < s.waiting.length; k++) {
      const [sec, side, n] = s.waiting[k]!;
      if (!all && sec > lastSec) break;
      const t = snapToPoint(points, sec);
      let c = s.onPoint.get(t);
      if (!c) s.onPoint.set(t, (c = [0, 0]));
      c[side === 'buy' ? 0 : 1] += n;
    }
    if (k > 0) s.waiting.splice(0, k);
  }
}
