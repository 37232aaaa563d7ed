// The simulation's own strategies: random intent generators that place, take and cancel at seeded random, within
// a position bound they keep by design (levels × size held at most, one size more while a fill is not yet shown by
// the positions poll); and the chaos a schedule brings to any strategy (a hook that throws, a flood of intents).
import { Decimal } from '../../domain/decimal.js';
import type { Order } from '../../domain/order.js';
import {
  defineStrategy,
  roundPrice,
  roundSize,
  z,
  type MarketUpdate,
  type StrategyContext,
  type StrategyDefinition,
  type StrategyIntent,
} from '../../strategy/api.js';
import { Prng, deriveSeed } from '../../util/prng.js';

/** What the schedule does to strategies now: the ids to throw on their next hook, or to flood intents. */
export interface Chaos {
  throwing: Set<string>;
  flooding: Set<string>;
  /** Strategies that have flooded: their position is no longer bound by their design. */
  flooded: Set<string>;
}

export function noChaos(): Chaos {
  return { throwing: new Set(), flooding: new Set(), flooded: new Set() };
}

const params = z.object({
  levels: z.number().int().min(1).default(4),
  size: z.string().default('0.01'),
  stepBps: z.number().int().min(1).default(10),
  /** Chances per market update, in parts per million. */
  placePpm: z.number().int().min(0).default(80_000),
  cancelPpm: z.number().int().min(0).default(50_000),
  takePpm: z.number().int().min(0).default(30_000),
});
type Params = z.infer<typeof params>;

/** What the instance holds of its symbol: a spot pair's base asset since it started, a futures symbol's long. */
function held(ctx: StrategyContext<Params>, u: MarketUpdate, symbol: string, spot: boolean, base: string): Decimal {
  if (!spot) return u.positions.find((p) => p.symbol === symbol && p.side === 'long')?.size ?? Decimal.ZERO;
  const b = u.balances.find((x) => x.surface === 'spot' && x.asset === base);
  if (!b) return Decimal.ZERO;
  if (typeof ctx.state.startBase !== 'string') ctx.state.startBase = b.total.toString();
  return b.total.sub(Decimal.from(ctx.state.startBase as string));
}

const left = (o: Order) => o.size.sub(o.filledSize);

/** A random intent generator over one symbol (seeded per run): its position stays within levels × size. */
export function randomGenerator(seed: number): StrategyDefinition<Params> {
  const rngs = new Map<string, Prng>();
  return defineStrategy({
    name: 'random-intents',
    description: 'Places, takes and cancels at seeded random, within levels × size held.',
    params,
    onMarket(ctx, u) {
      const symbol = ctx.symbols[0]!;
      const inst = ctx.instruments.get(symbol);
      const last = u.tickers.get(symbol)?.last;
      if (!inst || !last) return;
      let rng = rngs.get(ctx.id);
      if (!rng) rngs.set(ctx.id, (rng = new Prng(deriveSeed(seed, ctx.id))));
      const spot = inst.surface === 'spot';
      const size = roundSize(Decimal.from(ctx.params.size), inst);
      const pos = held(ctx, u, symbol, spot, inst.base);
      // A fill is seen at once (its order leaves our orders), what it holds only at a later poll: nothing is bought
      // until the poll shows what every fill seen makes it, or 20 s pass after the last one.
      const expect = ctx.state.expect;
      if (typeof expect === 'string' && (pos.eq(Decimal.from(expect)) || u.nowMs - Number(ctx.state.fillAtMs) > 20_000)) {
        delete ctx.state.expect;
        delete ctx.state.fillAtMs;
      }
      ctx.state.held = pos.toString();
      const mine = u.openOrders.filter((o) => o.symbol === symbol && o.status !== 'untriggered');
      const buys = mine.filter((o) => o.side === 'buy').reduce((s, o) => s.add(left(o)), Decimal.ZERO);
      const sells = mine.filter((o) => o.side === 'sell').reduce((s, o) => s.add(left(o)), Decimal.ZERO);
      const bound = size.mul(Decimal.fromInt(ctx.params.levels));
      const step = Decimal.fromInt(ctx.params.stepBps).div(Decimal.fromInt(10_000), 12);
      const one = Decimal.fromInt(1);
      const out: StrategyIntent[] = [];
      const futures = spot ? {} : { positionSide: 'long' as const };
      if (rng.chancePpm(ctx.params.placePpm) && ctx.state.expect === undefined && pos.add(buys).add(size).lte(bound)) {
        const take = rng.chancePpm(ctx.params.takePpm);
        const k = Decimal.fromInt(take ? -2 : 1 + rng.below(ctx.params.levels));
        const price = roundPrice(last.mul(one.sub(step.mul(k))), inst, 'down');
        out.push({ kind: 'place', surface: inst.surface, symbol, orders: [{ side: 'buy', kind: 'limit', timeInForce: 'gtc', price, size, ...futures }] });
      }
      const free = pos.sub(sells);
      if (free.gte(size) && rng.chancePpm(ctx.params.placePpm)) {
        const price = roundPrice(last.mul(one.add(step.mul(Decimal.fromInt(1 + rng.below(ctx.params.levels))))), inst, 'up');
        const close = spot ? {} : { positionSide: 'long' as const, reduceOnly: true };
        out.push({ kind: 'place', surface: inst.surface, symbol, orders: [{ side: 'sell', kind: 'limit', timeInForce: 'gtc', price, size, ...close }] });
      }
      const cancelable = mine.filter((o) => o.status === 'open' || o.status === 'pending');
      if (cancelable.length > 0 && rng.chancePpm(ctx.params.cancelPpm)) {
        const o = cancelable[rng.below(cancelable.length)]!;
        out.push({ kind: 'cancel', surface: inst.surface, symbol, clientOids: [o.clientOid!] });
      }
      return out;
    },
    onEvent(ctx, e) {
      if (e.type !== 'filled' && e.type !== 'partially-filled') return;
      // What this fill adds to the order's fills already seen, and so to what the next polls must show.
      const seen = (ctx.state.filled ?? {}) as Record<string, string>;
      const delta = e.filledSize.sub(Decimal.from(seen[e.clientOid] ?? '0'));
      if (e.type === 'filled') delete seen[e.clientOid];
      else seen[e.clientOid] = e.filledSize.toString();
      ctx.state.filled = seen;
      const base = Decimal.from(typeof ctx.state.expect === 'string' ? ctx.state.expect : typeof ctx.state.held === 'string' ? ctx.state.held : '0');
      ctx.state.expect = (e.side === 'buy' ? base.add(delta) : base.sub(delta)).toString();
      ctx.state.fillAtMs = e.atMs;
    },
  });
}

/** Intents a flood sends at once: each a bid of the smallest size, 1.5 % under the market. */
const FLOOD_INTENTS = 60;

/** A strategy with the schedule's chaos on top: its market hook throws, or floods, when the schedule says. */
export function withChaos<P>(def: StrategyDefinition<P>, chaos: Chaos): StrategyDefinition<P> {
  const onMarket = def.onMarket;
  if (!onMarket) return def;
  return {
    ...def,
    onMarket(ctx, u) {
      if (chaos.throwing.delete(ctx.id)) throw new Error(`${ctx.id}: a fault in the strategy (scheduled)`);
      const own = onMarket(ctx, u) ?? [];
      if (!chaos.flooding.delete(ctx.id)) return own;
      chaos.flooded.add(ctx.id);
      const symbol = ctx.symbols[0]!;
      const inst = ctx.instruments.get(symbol);
      const last = u.tickers.get(symbol)?.last;
      if (!inst || !last) return own;
      const price = roundPrice(last.mul(Decimal.from('0.985')), inst, 'down');
      const positionSide = inst.surface === 'futures' ? { positionSide: 'long' as const } : {};
      const flood: StrategyIntent[] = Array.from({ length: FLOOD_INTENTS }, () => ({
        kind: 'place',
        surface: inst.surface,
        symbol,
        orders: [{ side: 'buy', kind: 'limit', timeInForce: 'gtc', price, size: inst.minSize, ...positionSide }],
      }));
      return [...own, ...flood];
    },
  };
}
