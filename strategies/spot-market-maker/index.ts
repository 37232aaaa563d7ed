// A two-sided spot market maker: post-only quotes around the last price, skewed against inventory.
import { Decimal, defineStrategy, diffTargets, roundPrice, roundSize, z, type OrderSpec, type StrategyIntent } from 'sextant/strategy';

const decimal = z.string().regex(/^\d+(\.\d+)?$/, 'a decimal number as a string');

export default defineStrategy({
  name: 'spot-market-maker',
  description: 'Post-only bid and ask around the last trade, skewed away from the inventory it builds up.',
  params: z.strictObject({
    /** Distance of each quote from the reference price, in basis points. */
    halfSpreadBps: z.number().int().min(1).max(500).default(10),
    /** Size of each quote (base currency). */
    size: decimal.default('0.001'),
    /** Inventory (base, relative to the start) at which the quote that adds to it is pulled. */
    maxInventory: decimal.default('0.01'),
    /** How far quotes move against a full inventory, in basis points. */
    skewBps: z.number().int().min(0).max(500).default(10),
    /** A quote within this many basis points of its target is left alone (no churn). */
    toleranceBps: z.number().int().min(0).max(100).default(3),
  }),

  onMarket(ctx, u) {
    const symbol = ctx.symbols[0]!;
    const inst = ctx.instruments.get(symbol);
    const last = u.tickers.get(symbol)?.last;
    if (!inst || !last) return;
    const base = u.balances.find((b) => b.asset === inst.base)?.total;
    if (!base) return;
    if (ctx.state.startBase === undefined) ctx.state.startBase = base.toString();
    const inventory = base.sub(Decimal.from(String(ctx.state.startBase)));
    const max = Decimal.from(ctx.params.maxInventory);
    const bp = (n: Decimal) => n.div(Decimal.fromInt(10_000), 12);
    // Skew: a long inventory lowers both quotes (sell sooner, buy later), a short one raises them.
    const ratio = max.isZero() ? Decimal.ZERO : inventory.div(max, 12);
    const shift = bp(Decimal.fromInt(ctx.params.skewBps)).mul(ratio);
    const half = bp(Decimal.fromInt(ctx.params.halfSpreadBps));
    const one = Decimal.fromInt(1);
    const size = roundSize(Decimal.from(ctx.params.size), inst);
    const targets: OrderSpec[] = [];
    if (inventory.lt(max)) targets.push({ side: 'buy', kind: 'limit', timeInForce: 'post_only', price: roundPrice(last.mul(one.sub(half).sub(shift)), inst, 'down'), size });
    if (inventory.neg().lt(max)) targets.push({ side: 'sell', kind: 'limit', timeInForce: 'post_only', price: roundPrice(last.mul(one.add(half).sub(shift)), inst, 'up'), size });

    // Keep quotes already close enough to their target.
    const tolerance = bp(Decimal.fromInt(ctx.params.toleranceBps)).mul(last);
    // Orders being canceled are on their way out; unanswered ones count (never placed twice).
    const open = u.openOrders.filter((o) => o.symbol === symbol && o.status !== 'canceling');
    const wanted = targets.map((t) => {
      const near = open.find((o) => o.side === t.side && o.price && o.price.sub(t.price!).abs().lte(tolerance) && o.size.sub(o.filledSize).eq(t.size));
      return near ? { ...t, price: near.price! } : t;
    });
    const { cancel, place } = diffTargets(wanted, open);
    const intents: StrategyIntent[] = [];
    // By client id: an order not answered yet has no venue id, and every order a strategy sees carries its client id.
    if (cancel.length) intents.push({ kind: 'cancel', surface: 'spot', symbol, clientOids: cancel.map((o) => o.clientOid!) });
    if (place.length) intents.push({ kind: 'place', surface: 'spot', symbol, orders: place });
    return intents;
  },
});
