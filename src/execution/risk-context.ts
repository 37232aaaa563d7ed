// What the risk gate's caps count when the executor asks it: the journal's limit orders that may rest (lost ones
// are treated as not placed), and the limit orders the venue listed that the journal does not hold as resting (a
// row concluded too early, or an order this bot did not create), so neither view alone can let a cap be passed.
import { Decimal } from '../domain/decimal.js';
import { reducesExposure } from '../domain/intent.js';
import type { Instrument } from '../domain/market.js';
import { RESTING_STATES } from '../domain/order-lifecycle.js';
import type { Order } from '../domain/order.js';
import type { Journal, JournalOrder } from '../journal/journal.js';
import type { RiskContext } from './risk.js';

/** Where the counts and prices come from (the executor's options). */
export interface RiskContextSources {
  journal: Journal;
  instruments: ReadonlyMap<string, Instrument>;
  reference: RiskContext['reference'];
  /** The open orders the venue listed at the last poll. */
  listed?: () => readonly Order[];
}

/** The gate's view at `nowMs`: instruments, reference prices, and the open orders and notional the caps count. */
export function riskContextOf(src: RiskContextSources, nowMs: number): RiskContext {
  const resting = src.journal.activeOrders().filter((r) => r.kind === 'limit' && RESTING_STATES.has(r.state));
  const listed = src.listed?.() ?? [];
  // Nothing open (a strategy of market orders): nothing to count.
  if (resting.length === 0 && listed.length === 0) return Object.assign({ now: nowMs }, nothingOpen(src));
  const counted = resting.map((r) => ({ symbol: r.symbol, strategyId: r.strategyId as string | null, notional: openValue(r) }));
  const held = new Set(resting.flatMap((r) => [r.clientOid, ...(r.orderId ? [`#${r.orderId}`] : [])]));
  for (const v of listed) {
    if (v.kind === 'market' || (v.clientOid && held.has(v.clientOid)) || held.has(`#${v.orderId}`)) continue;
    const row = v.clientOid ? src.journal.order(v.clientOid) : undefined;
    const left = v.size.sub(v.filledSize);
    counted.push({
      symbol: v.symbol,
      strategyId: row?.strategyId ?? null,
      notional: !reducesExposure(v, v.surface) && v.price ? v.price.mul(left) : Decimal.ZERO,
    });
  }
  return {
    now: nowMs,
    instrument: (s) => src.instruments.get(s),
    reference: (s) => src.reference(s),
    openCount: (s) => counted.filter((r) => r.symbol === s).length,
    openCountByStrategy: (id) => counted.filter((r) => r.strategyId === id).length,
    openNotional: (s) => counted.filter((r) => r.symbol === s).reduce((a, r) => a.add(r.notional), Decimal.ZERO),
  };
}

/** The context's functions when nothing is open, made once per source. */
const EMPTY = new WeakMap<RiskContextSources, Omit<RiskContext, 'now'>>();
function nothingOpen(src: RiskContextSources): Omit<RiskContext, 'now'> {
  let fns = EMPTY.get(src);
  if (!fns) {
    fns = {
      instrument: (s) => src.instruments.get(s),
      reference: (s) => src.reference(s),
      openCount: () => 0,
      openCountByStrategy: () => 0,
      openNotional: () => Decimal.ZERO,
    };
    EMPTY.set(src, fns);
  }
  return fns;
}

/** The notional a resting row adds to its symbol's exposure (what is left of a buy, or of a futures open). */
function openValue(r: JournalOrder): Decimal {
  if (reducesExposure(r, r.surface) || !r.price) return Decimal.ZERO;
  return Decimal.from(r.price).mul(Decimal.from(r.size).sub(Decimal.from(r.filledSize)));
}
