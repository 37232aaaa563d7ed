// A seeded random run for the report's incremental books: fills of futures (both position sides) and spot symbols by
// two strategies, at times that repeat, with sizes and prices of a few places (more later in the run: the books'
// scale widens), fees positive, negative (rebates) and zero, some liquidations; price samples as the run takes them
// (at most one a second, exact and for the charts); and when each fill's owner becomes known (at once, later, or
// never before the end). Sizes may be huge: amounts beyond 2^53 units.
import { Decimal } from '../../../src/domain/decimal.js';
import type { Fill, PositionSide } from '../../../src/domain/market.js';
import type { FillKind } from '../../../src/report/futures.js';

export type RunEvent =
  | { type: 'fill'; fill: Fill; kind: FillKind | undefined; owner: string; knownNow: boolean }
  | { type: 'sample'; symbol: string; ms: number; price: Decimal }
  | { type: 'resolve'; orderId: string; owner: string; ms: number };

export interface RandomRun {
  events: RunEvent[];
  /** The fills in the order they happened, their owners and kinds. */
  fills: Fill[];
  owners: Map<string, string>;
  kinds: Map<string, FillKind>;
  /** Order ids whose owner no event names (known at the end only). */
  late: Set<string>;
  futures: Set<string>;
  /** The samples as the run keeps them: exact (ms) and for the charts (s). */
  marks: Record<string, Array<[number, Decimal]>>;
  chart: Record<string, Array<[number, number]>>;
}

export function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

/** Applies a sample as EquitySamples keeps them: one a second. */
export function takeSample(marks: RandomRun['marks'], chart: RandomRun['chart'], symbol: string, ms: number, price: Decimal): void {
  const sec = Math.floor(ms / 1000);
  const series = (chart[symbol] ??= []);
  if (series.length > 0 && series[series.length - 1]![0] >= sec) return;
  series.push([sec, price.toNumber()]);
  (marks[symbol] ??= []).push([ms, price]);
}

/**
 * `huge`: now and then a size so large that the books' amounts go beyond 2^53 units (they are then held in BigInt
 * until the holding is flat again).
 */
export function randomRun(seed: number, n: number, opts: { strategies?: string[]; ownerDelay?: boolean; huge?: boolean } = {}): RandomRun {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const strategies = opts.strategies ?? ['s1', 's2'];
  const symbols = ['A', 'B', 'S'];
  const futures = new Set(['A', 'B']);
  const price = new Map<string, bigint>([
    ['A', 100_000n],
    ['B', 2_500n],
    ['S', 90_000n],
  ]);
  const rates = ['0.0006', '-0.0002', '0', '0.00055'];
  const events: RunEvent[] = [];
  const fills: Fill[] = [];
  const owners = new Map<string, string>();
  const kinds = new Map<string, FillKind>();
  const late = new Set<string>();
  const resolutions: Array<{ ms: number; orderId: string; owner: string }> = [];
  /** Orders whose owner an event has named. */
  const known = new Set<string>();
  let ms = 1_000_000;
  let lastSampleSec = 0;
  let order = 0;
  for (let i = 0; i < n; i++) {
    ms += pick([0, 0, 1, 7, 250, 999, 1000, 2500]);
    // Samples taken up to now; one at this very millisecond may come before or after the fills of it.
    const sampleNow = r() < 0.5;
    const sample = (at: number) => {
      for (const s of symbols) {
        const p = price.get(s)!;
        const places = i > n / 2 && r() < 0.3 ? 4 : 1;
        events.push({
          type: 'sample',
          symbol: s,
          ms: at,
          price: Decimal.of(p * 10n ** BigInt(places - 1) + (places > 1 ? BigInt(Math.floor(r() * 9)) : 0n), places),
        });
      }
    };
    if (Math.floor(ms / 1000) > lastSampleSec && !sampleNow) {
      lastSampleSec = Math.floor(ms / 1000);
      sample(ms - (ms % 1000));
    }
    while (resolutions.length > 0 && resolutions[0]!.ms <= ms) {
      const x = resolutions.shift()!;
      known.add(x.orderId);
      events.push({ type: 'resolve', orderId: x.orderId, owner: x.owner, ms: x.ms });
    }
    const symbol = pick(symbols);
    price.set(symbol, price.get(symbol)! + BigInt(Math.floor(r() * 21) - 10));
    const widePlaces = i > (2 * n) / 3 && r() < 0.2;
    const p = widePlaces ? Decimal.of(price.get(symbol)! * 1000n + BigInt(Math.floor(r() * 999)), 4) : Decimal.of(price.get(symbol)!, 1);
    const size = Decimal.from(
      opts.huge && r() < 0.1 ? pick(['123456789.5', '98765432', '250000000.25']) : pick(['0.001', '0.002', '0.003', '0.01', '1', '0.0015']),
    );
    const amount = p.mul(size);
    const liquidation = futures.has(symbol) && r() < 0.03;
    const fee = amount.mul(Decimal.from(liquidation ? '0.001' : pick(rates)));
    const strategy = pick(strategies);
    // Several fills of one order now and then (its owner is one answer for all).
    const orderId =
      !liquidation && r() < 0.2 && order > 0 && fills[fills.length - 1]!.symbol === symbol && owners.get(fills[fills.length - 1]!.orderId) === strategy
        ? fills[fills.length - 1]!.orderId
        : `o${++order}`;
    const fill: Fill = { symbol, orderId, fillId: `f${i}`, side: r() < 0.5 ? 'buy' : 'sell', price: p, size, amount, fee, timestampMs: ms };
    const positionSide: PositionSide | null = futures.has(symbol) ? pick(['long', 'short'] as const) : null;
    const kind: FillKind | undefined = futures.has(symbol) ? { taker: pick([true, false, null]), liquidation, positionSide } : undefined;
    if (kind) kinds.set(fill.fillId, kind);
    const owner = liquidation ? '(liquidation)' : strategy;
    const first = !owners.has(orderId);
    owners.set(orderId, owner);
    // An order resting before it fills is known at its fills; one filled on arrival is named a little later, or
    // (now and then) by nothing before the end.
    if (liquidation || !opts.ownerDelay || (first && r() < 0.3)) known.add(orderId);
    else if (first) {
      if (r() < 0.1) late.add(orderId);
      else resolutions.push({ ms: ms + pick([1, 50, 100, 3000]), orderId, owner });
      resolutions.sort((a, b) => a.ms - b.ms);
    }
    const knownNow = known.has(orderId);
    events.push({ type: 'fill', fill, kind, owner, knownNow });
    fills.push(fill);
    if (Math.floor(ms / 1000) > lastSampleSec && sampleNow) {
      lastSampleSec = Math.floor(ms / 1000);
      sample(ms);
    }
  }
  for (const x of resolutions) events.push({ type: 'resolve', orderId: x.orderId, owner: x.owner, ms: x.ms });
  const marks: RandomRun['marks'] = {};
  const chart: RandomRun['chart'] = {};
  for (const e of events) if (e.type === 'sample') takeSample(marks, chart, e.symbol, e.ms, e.price);
  return { events, fills, owners, kinds, late, futures, marks, chart };
}

/** Whether a run holds an amount beyond 2^53 units of 10^-9 (the books take the BigInt path for it). */
export const beyondSafe = (run: RandomRun): boolean => run.fills.some((f) => f.amount.abs().gt(Decimal.from('9007199.254740992')));
