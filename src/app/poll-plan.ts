// Checks that the configured polling plan fits its share of the weight budget, and says which poll to slow.
import type { ConfigIssue, LoadedConfig } from '../config/load.js';
import type { Surface } from '../domain/market.js';
import { ENDPOINTS, type EndpointId } from '../exchange/endpoints.js';

type PollName = 'tickersMs' | 'ordersMs' | 'balancesMs' | 'positionsMs';

interface Use {
  poll: PollName;
  endpoint: EndpointId;
  /** Requests per cycle: symbols × pages. */
  times: number;
}

function surfaceOf(symbol: string): Surface {
  return symbol.startsWith('cmt_') ? 'futures' : 'spot';
}

/**
 * Pages one open-orders read of a symbol takes. F5 and S15 list open orders only: pages of their maximum size until
 * one comes back short, so `expected` rows (the risk cap on open orders per symbol) take floor(expected / size) + 1.
 * S1 lists the pair's whole order history, which only grows: a long-running daemon walks every page it may.
 */
export function openOrderPages(endpoint: 'F5' | 'S15' | 'S1', expected: number, maxPages: number): number {
  if (endpoint === 'S1') return maxPages;
  return Math.min(maxPages, Math.floor(expected / ENDPOINTS[endpoint].maxPageSize!) + 1);
}

/** The requests each poll makes per cycle, per the strategies' symbols. */
export function pollRequests(loaded: LoadedConfig): Use[] {
  const cfg = loaded.config;
  const symbols = [...new Set(cfg.strategies.flatMap((s) => s.symbols))];
  const spot = symbols.filter((s) => surfaceOf(s) === 'spot').length;
  const fut = symbols.filter((s) => surfaceOf(s) === 'futures').length;
  const expected = cfg.risk.maxOpenOrdersPerSymbol;
  const maxPages = cfg.exchange.maxPages;
  const spotOrders = cfg.exchange.spotOpenOrders;
  const uses: Use[] = [];
  if (fut) {
    uses.push(
      { poll: 'tickersMs', endpoint: 'F2', times: 1 },
      { poll: 'ordersMs', endpoint: 'F5', times: fut * openOrderPages('F5', expected, maxPages) },
      { poll: 'balancesMs', endpoint: 'F3', times: 1 },
      { poll: 'positionsMs', endpoint: 'F4', times: fut },
    );
  }
  if (spot) {
    uses.push(
      { poll: 'tickersMs', endpoint: 'S9', times: spot },
      { poll: 'ordersMs', endpoint: spotOrders, times: spot * openOrderPages(spotOrders, expected, maxPages) },
      { poll: 'balancesMs', endpoint: 'S8', times: 1 },
    );
  }
  return uses;
}

/** Problems with the plan: polls may use at most `daemon.pollShare` of each usable budget. */
export function checkPollingPlan(loaded: LoadedConfig): ConfigIssue[] {
  const cfg = loaded.config;
  const rl = cfg.exchange.rateLimit;
  const issues: ConfigIssue[] = [];
  const uses = pollRequests(loaded);
  for (const surface of ['spot', 'futures'] as const) {
    for (const pool of ['ip', 'uid'] as const) {
      const budget = rl[surface][pool];
      const allowed = budget.budget * rl.usableFraction * cfg.daemon.pollShare;
      const per = new Map<PollName, { weight: number; what: string[] }>();
      for (const u of uses) {
        const e = ENDPOINTS[u.endpoint];
        if (e.surface !== surface) continue;
        const w = pool === 'ip' ? e.weight.ip : e.auth ? e.weight.uid : 0;
        const perWindow = (w * u.times * budget.windowMs) / cfg.daemon.polls[u.poll];
        const p = per.get(u.poll) ?? { weight: 0, what: [] };
        p.weight += perWindow;
        if (w > 0) p.what.push(`${u.endpoint} ${u.times}×${w}`);
        per.set(u.poll, p);
      }
      const total = [...per.values()].reduce((a, b) => a + b.weight, 0);
      if (total <= allowed) continue;
      const [worst, use] = [...per.entries()].sort((a, b) => b[1].weight - a[1].weight)[0]!;
      issues.push({
        file: loaded.file,
        ...loaded.source?.locate(['daemon', 'polls'], worst),
        path: `daemon.polls.${worst}`,
        message: `polling uses ${Math.ceil(total)} ${pool.toUpperCase()} weight per ${budget.windowMs} ms on ${surface}, more than its share ${Math.floor(allowed)} (pollShare ${cfg.daemon.pollShare} of ${rl.usableFraction} × ${budget.budget}); slow down ${worst} (${Math.ceil(use.weight)} per window: ${use.what.join(', ')} per cycle)`,
      });
    }
  }
  return issues;
}
