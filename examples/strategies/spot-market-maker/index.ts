// A two-sided spot market maker: post-only quotes around the last price, skewed against inventory, never
// priced to cross the touch (a post-only order that would take is refused).
import { Decimal, defineStrategy, diffTargets, roundPrice, roundSize, z, type OrderSpec, type StrategyIntent } from 'sextant/strategy';

const decimal = z.string().regex(/^\d+(\.\d+)?$/, 'a decimal number as a string');

export default defineStrategy({
  name: 'spot-market-maker',
  description: 'Post-only bid and ask around the last trade, skewed away from the inventory it builds up.',
  params: z.strictObject({
    /** Distance of each quote from the reference price, in basis points. */
    halfSpreadBps: z.number().int().min(1).max(500).default(25),
    /** Size of each quote (base currency). */
    size: decimal.default('0.001'),
    /** Inventory (base, relative to the start) at which the quote that adds to it is pulled. */
    maxInventory: decimal.default('0.01'),
    /** How far quotes move against a full inventory, in basis points. */
    skewBps: z.number().int().min(0).max(500).default(10),
    /** A quote within this many basis points of its target is left alone (no churn). */
    toleranceBps: z.number().int().min(0).max(100).default(40),
  }),

  onMarket(ctx, u) {
    const symbol = ctx.symbols[0]!;
    const inst = ctx.instruments.get(symbol);
    const ticker = u.tickers.get(symbol);
    const last = ticker?.last;
    if (!inst || !last) return;
    const base = u.balances.find((b) => b.asset === inst.base)?.total;
    if (!base) return;
    if (ctx.state.startBase === undefined) ctx.state.startBase = base.toString();
    const inventory = base.sub(Decimal.from(String(ctx.state.startBase)));
    const max = Decimal.from(ctx.params.maxInventory);
    const bp = (n: Decimal) => n.div(Decimal.fromInt(10_000), 12);
    // Skew: a long inventory lowers both quotes (sell sooner, buy later), a short one raises them, by up to skewBps
    // (the inventory may run past maxInventory while orders are under way).
    const one = Decimal.fromInt(1);
    const raw = max.isZero() ? Decimal.ZERO : inventory.div(max, 12);
    const ratio = raw.gt(one) ? one : raw.lt(one.neg()) ? one.neg() : raw;
    const shift = bp(Decimal.fromInt(ctx.params.skewBps)).mul(ratio);
    const half = bp(Decimal.fromInt(ctx.params.halfSpreadBps));
    const size = roundSize(Decimal.from(ctx.params.size), inst);
    // Post-only: a bid at or above the best ask, or an ask at or below the best bid, would take and is refused.
    // Bids stay a tick under the best ask, asks a tick over the best bid; where the ticker has no book (a spot pair's
    // ticker is its last trade, which was at the bid or at the ask), a tick beyond the last trade.
    const bidCap = (ticker?.bestAsk ?? last).sub(inst.tickSize);
    const askFloor = (ticker?.bestBid ?? last).add(inst.tickSize);
    const bid = roundPrice(last.mul(one.sub(half).sub(shift)), inst, 'down');
    const ask = roundPrice(last.mul(one.add(half).sub(shift)), inst, 'up');
    const targets: OrderSpec[] = [];
    if (inventory.lt(max)) targets.push({ side: 'buy', kind: 'limit', timeInForce: 'post_only', price: bid.gt(bidCap) ? bidCap : bid, size });
    if (inventory.neg().lt(max)) targets.push({ side: 'sell', kind: 'limit', timeInForce: 'post_only', price: ask.lt(askFloor) ? askFloor : ask, size });

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
