// Checks that the configured polling plan fits its share of the weight budget, and says which poll to slow.
import type { ConfigIssue, LoadedConfig } from '../config/load.js';
import type { Surface } from '../domain/market.js';
import { ENDPOINTS, type EndpointId } from '../exchange/endpoints.js';

type PollName = 'tickersMs' | 'ordersMs' | 'balancesMs' | 'positionsMs';

interface Use {
  poll: PollName;
  endpoint: EndpointId;
  times: number;
}

function surfaceOf(symbol: string): Surface {
  return symbol.startsWith('cmt_') ? 'futures' : 'spot';
}

/** The requests each poll makes per cycle, per the strategies' symbols. */
export function pollRequests(loaded: LoadedConfig): Use[] {
  const symbols = [...new Set(loaded.config.strategies.flatMap((s) => s.symbols))];
  const spot = symbols.filter((s) => surfaceOf(s) === 'spot').length;
  const fut = symbols.filter((s) => surfaceOf(s) === 'futures').length;
  const uses: Use[] = [];
  if (fut) uses.push({ poll: 'tickersMs', endpoint: 'F2', times: 1 }, { poll: 'ordersMs', endpoint: 'F5', times: fut }, { poll: 'balancesMs', endpoint: 'F3', times: 1 }, { poll: 'positionsMs', endpoint: 'F4', times: fut });
  if (spot) uses.push({ poll: 'tickersMs', endpoint: 'S9', times: spot }, { poll: 'ordersMs', endpoint: 'S1', times: spot }, { poll: 'balancesMs', endpoint: 'S8', times: 1 });
  return uses;
}

/** Problems with the plan: polls may use at most `daemon.pollShare` of each usable budget. */
export function checkPollingPlan(loaded: LoadedConfig): ConfigIssue[] {
  const cfg = loaded.config;
  const rl = cfg.exchange.rateLimit;
  const issues: ConfigIssue[] = [];
  for (const surface of ['spot', 'futures'] as const) {
    for (const pool of ['ip', 'uid'] as const) {
      const budget = rl[surface][pool];
      const allowed = budget.budget * rl.usableFraction * cfg.daemon.pollShare;
      const per = new Map<PollName, number>();
      for (const u of pollRequests(loaded)) {
        const e = ENDPOINTS[u.endpoint];
        if (e.surface !== surface) continue;
        const w = pool === 'ip' ? e.weight.ip : e.auth ? e.weight.uid : 0;
        const perWindow = (w * u.times * budget.windowMs) / cfg.daemon.polls[u.poll];
        per.set(u.poll, (per.get(u.poll) ?? 0) + perWindow);
      }
      const total = [...per.values()].reduce((a, b) => a + b, 0);
      if (total <= allowed) continue;
      const [worst, weight] = [...per.entries()].sort((a, b) => b[1] - a[1])[0]!;
      issues.push({
        file: loaded.file,
        path: `daemon.polls.${worst}`,
        message: `polling uses ${Math.ceil(total)} ${pool.toUpperCase()} weight per ${budget.windowMs} ms on ${surface}, more than its share ${Math.floor(allowed)} (pollShare ${cfg.daemon.pollShare} of ${rl.usableFraction} × ${budget.budget}); slow down ${worst} (${Math.ceil(weight)} per window)`,
      });
    }
  }
  return issues;
}
