// What the daemon's Control shows, made from the core's records: an execution event as a line and as JSON-ready
// fields, a journal order as the API's view, and the realised PnL of the journal's fills per strategy by window
// (today, 7 days, all time) and per symbol, exact.
import { Decimal } from '../domain/decimal.js';
import type { ExecutionEvent } from '../domain/events.js';
import type { Fill } from '../domain/market.js';
import type { JournalFill, JournalOrder } from '../journal/journal.js';
import type { OrderView, ProfitWindow, RealisedView, SymbolPerformance } from '../ops/control.js';
import { realisedBreakdown } from '../report/metrics.js';

const DAY_MS = 86_400_000;
/** What nothing realised reads as (fx.text of 0 at 8 places, as the figures with fills read). */
const NOTHING_REALISED: RealisedView = { realized: '0.00000000', fees: '0.00000000', fills: 0, roundTrips: 0 };

export const str = (d: Decimal | null | undefined): string | null => (d ? d.toString() : null);

/** One line for an execution event. */
export function textOf(e: ExecutionEvent): string {
  if (e.type === 'trading-state') return `trading ${e.state}: ${e.reason}`;
  const who = `${e.strategyId} ${e.symbol}`;
  switch (e.type) {
    case 'denied':
      return `${who}: denied (${e.reason}): ${e.detail}`;
    case 'accepted':
      return `${who}: ${e.clientOid} accepted${e.trigger ? ' (trigger)' : ''} as ${e.orderId}`;
    case 'rejected':
      return `${who}: ${e.clientOid} rejected: ${e.reason}`;
    case 'unknown':
    case 'lost':
      return `${who}: ${e.clientOid} ${e.type}: ${e.reason}`;
    case 'vanished':
      return `${who}: ${e.clientOid} ${e.state}: ${e.reason}`;
    case 'resolved':
      return `${who}: ${e.clientOid} resolved as ${e.state}`;
    case 'partially-filled':
    case 'filled':
      return `${who}: ${e.clientOid} ${e.side} ${e.type} ${e.filledSize.toString()}${e.avgPrice ? ` at ${e.avgPrice.toString()}` : ''}`;
    case 'canceled':
    case 'triggered':
      return `${who}: ${e.clientOid} ${e.type}`;
  }
}

/** An execution event as JSON-ready fields (decimals as strings). */
export function dataOf(e: ExecutionEvent): Record<string, unknown> {
  return JSON.parse(JSON.stringify(e)) as Record<string, unknown>;
}

export function orderView(r: JournalOrder): OrderView {
  return {
    clientOid: r.clientOid,
    orderId: r.orderId,
    strategyId: r.strategyId,
    surface: r.surface,
    symbol: r.symbol,
    side: r.side,
    kind: r.isTrigger ? 'trigger' : r.kind,
    price: r.price ?? (r.isTrigger ? r.triggerPrice : null),
    size: r.size,
    filledSize: r.filledSize,
    avgPrice: r.avgPrice,
    state: r.state,
    role: r.role ?? null,
    createdAtMs: r.createdAtMs,
    updatedAtMs: r.updatedAtMs,
  };
}

/** The strategies' fills of the journal, oldest first, as fills, with whose each is. */
export interface OwnedFills {
  fills: Fill[];
  owner: (f: Fill) => string;
}

/** The journal's fills of the strategies' orders as fills, with whose each is. */
export function ownedFills(rows: readonly JournalFill[]): OwnedFills {
  const fills: Fill[] = [];
  const owner = new Map<Fill, string>();
  for (const f of rows) {
    if (!f.strategyId || !f.symbol || !f.side) continue;
    const price = Decimal.from(f.price);
    const size = Decimal.from(f.size);
    const fill: Fill = {
      symbol: f.symbol,
      orderId: f.orderId,
      fillId: f.fillId,
      side: f.side,
      price,
      size,
      amount: price.mul(size),
      fee: Decimal.from(f.fee),
      timestampMs: f.atMs,
    };
    owner.set(fill, f.strategyId);
    fills.push(fill);
  }
  return { fills, owner: (f) => owner.get(f)! };
}

/** Realised PnL and fees per strategy today (UTC), the last 7 days and all time; the configured first, then those of the fills no longer configured. */
export function profitWindows({ fills, owner }: OwnedFills, configured: readonly string[], nowMs: number): ProfitWindow[] {
  const windows: Array<Pick<ProfitWindow, 'window' | 'sinceMs'>> = [
    { window: 'today', sinceMs: Math.floor(nowMs / DAY_MS) * DAY_MS },
    { window: '7d', sinceMs: nowMs - 7 * DAY_MS },
    { window: 'all', sinceMs: null },
  ];
  const breakdown = realisedBreakdown(
    fills,
    owner,
    windows.map((w) => w.sinceMs),
  );
  // The strategies no longer configured are listed too: the total adds up.
  const ids = [...configured, ...Object.keys(breakdown.windows[2]!.byStrategy).filter((id) => !configured.includes(id))];
  return windows.map((w, i) => {
    const figures = breakdown.windows[i]!;
    return { ...w, strategies: ids.map((id) => ({ id, ...(figures.byStrategy[id] ?? NOTHING_REALISED) })), total: figures.total };
  });
}

/** Realised PnL per symbol, best first. */
export function symbolPerformance({ fills, owner }: OwnedFills): SymbolPerformance[] {
  const bySymbol = realisedBreakdown(fills, owner, []).bySymbol;
  return Object.entries(bySymbol)
    .map(([symbol, figures]) => ({ symbol, ...figures }))
    .sort((a, b) => Decimal.from(b.realized).cmp(Decimal.from(a.realized)) || (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0));
}
