// The venue's request budgets (weight per window per IP and per UID on each surface, order-endpoint requests per
// second) and the venue's documented figures for them: the one place those defaults live.

/** What the venue allows before it answers 429, as the simulator and the backtest's meter enforce it. */
export interface VenueBudget {
  spot: { ip: number; uid: number };
  futures: { ip: number; uid: number };
  /** Window the IP and UID weights are counted in (fixed windows aligned to the clock). */
  windowMs: number;
  /** Requests per second on order endpoints (place, cancel, trigger place and cancel). */
  orderRequestsPerSecond: number;
}

/**
 * The venue's documented budgets (exchange facts §2): futures 1000 weight per 10 s per IP and per UID; spot
 * 500 per 10 s (secondary sources; the spot page was not found); order endpoints at most 10 requests per second.
 */
export const VENUE_BUDGET: Readonly<VenueBudget> = Object.freeze({
  spot: Object.freeze({ ip: 500, uid: 500 }),
  futures: Object.freeze({ ip: 1000, uid: 1000 }),
  windowMs: 10_000,
  orderRequestsPerSecond: 10,
});

/** A budget of weight (or requests) per window, as the client-side limiter is configured. */
interface WindowFigures {
  budget: number;
  windowMs: number;
}

/** The client-side limiter's figures (exchange.rateLimit) that a meter of the venue's budget is built from. */
export interface LimiterFigures {
  spot: { ip: WindowFigures; uid: WindowFigures };
  futures: { ip: WindowFigures; uid: WindowFigures };
  orderRequests: WindowFigures;
}

/**
 * The venue budget the limiter's figures stand for (a backtest meters what the live limiter was told the venue
 * allows): the weights per pool, the spot IP window as the window, and the order cap per second rounded down.
 */
export function venueBudgetOf(limits: LimiterFigures): VenueBudget {
  return {
    spot: { ip: limits.spot.ip.budget, uid: limits.spot.uid.budget },
    futures: { ip: limits.futures.ip.budget, uid: limits.futures.uid.budget },
    windowMs: limits.spot.ip.windowMs,
    orderRequestsPerSecond: Math.floor((limits.orderRequests.budget * 1000) / limits.orderRequests.windowMs),
  };
}
