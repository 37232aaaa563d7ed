// Checks that the configured polling plan fits its share of the weight budget, and says which poll to slow.
import type { ConfigIssue, LoadedConfig } from '../config/load.js';
import { surfaceOfSymbol } from '../domain/market.js';
import { ENDPOINTS, chargesOf, type EndpointId } from '../exchange/endpoints.js';
import { POLLS, pollCycle, type PollPeriodKey } from '../data/polls.js';

interface Use {
  poll: PollPeriodKey;
  endpoint: EndpointId;
  /** Requests per cycle: symbols × pages. */
  times: number;
}

/**
 * Pages one open-orders read of a symbol takes. F5 and S15 list open orders only: pages of their maximum size until
 * one comes back short, so `expected` rows (the risk cap on open orders per symbol) take floor(expected / size) + 1.
 * S1 lists the pair's whole order history, which only grows: a long-running daemon walks every page it may.
 */
export function openOrderPages(endpoint: EndpointId, expected: number, maxPages: number): number {
  if (endpoint === 'S1') return maxPages;
  const size = ENDPOINTS[endpoint].maxPageSize;
  return size ? Math.min(maxPages, Math.floor(expected / size) + 1) : 1;
}

/** The requests each poll makes per cycle, per the strategies' symbols. */
export function pollRequests(loaded: LoadedConfig): Use[] {
  const cfg = loaded.config;
  const symbols = [...new Set(cfg.strategies.flatMap((s) => s.symbols))];
  const polled = { spot: symbols.filter((s) => surfaceOfSymbol(s) === 'spot'), futures: symbols.filter((s) => surfaceOfSymbol(s) === 'futures') };
  const pages = (endpoint: EndpointId) => openOrderPages(endpoint, cfg.risk.maxOpenOrdersPerSymbol, cfg.exchange.maxPages);
  const uses: Use[] = [];
  for (const poll of POLLS) for (const r of pollCycle(poll, polled, cfg.exchange.spotOpenOrders, pages)) uses.push({ poll: poll.periodKey, ...r });
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
      const per = new Map<PollPeriodKey, { weight: number; what: string[] }>();
      for (const u of uses) {
        const e = ENDPOINTS[u.endpoint];
        if (e.surface !== surface) continue;
        const w = chargesOf(e).find((c) => c.kind === pool)?.weight ?? 0;
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
