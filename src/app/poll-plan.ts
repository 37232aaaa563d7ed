// Checks that the configured polling plan fits its share of the weight budget, and says which poll to slow.
import type { ConfigIssue, LoadedConfig } from '../config/load.js';
import { surfaceOfSymbol, type Surface } from '../domain/market.js';
import { ENDPOINTS, chargesOf, type EndpointId } from '../exchange/endpoints.js';
import {
  POLLS,
  WATCH_POLLS,
  chooseFuturesTickers,
  pollCycle,
  type PollChoices,
  type PolledSymbols,
  type PollPeriodKey,
  type WatchPeriodKey,
} from '../data/polls.js';
import type { Config } from '../config/schema.js';

interface Use {
  poll: PollPeriodKey | WatchPeriodKey;
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

/** How the configurable reads are made for `futuresContracts` traded contracts (config `exchange`). */
export function pollChoices(cfg: Config, futuresContracts: number): PollChoices {
  const weight = (id: 'F2' | 'F12') => ENDPOINTS[id].weight.ip;
  return {
    spotOpenOrders: cfg.exchange.spotOpenOrders,
    futuresTickers: chooseFuturesTickers(cfg.exchange.futuresTickers, futuresContracts, { F2: weight('F2'), F12: weight('F12') }),
    spotTickers: cfg.exchange.spotTickers,
  };
}

/** Whether a shadow follows the daemon (config `shadow`: live and dry-run only). */
export function shadowed(config: Config): boolean {
  return config.shadow.enabled && config.mode !== 'backtest';
}

/** What the polls read for the strategies' symbols (and the spot pairs of those with bars), and how. */
function plannedReads(cfg: Config): { polled: PolledSymbols; choices: PollChoices } {
  const symbols = [...new Set(cfg.strategies.flatMap((s) => s.symbols))];
  const barSymbols = new Set(cfg.strategies.filter((s) => s.timeframes?.length).flatMap((s) => s.symbols));
  const spot = symbols.filter((s) => surfaceOfSymbol(s) === 'spot');
  // A shadow replays every spot pair's public trades (kernel.ts): the trades poll reads them all.
  const barSpot = shadowed(cfg) ? spot : spot.filter((s) => barSymbols.has(s));
  const polled = { spot, futures: symbols.filter((s) => surfaceOfSymbol(s) === 'futures'), barSpot };
  return { polled, choices: pollChoices(cfg, polled.futures.length) };
}

/** The requests each poll makes per cycle, per the strategies' symbols (and the spot pairs of those with bars). */
export function pollRequests(loaded: LoadedConfig): Use[] {
  const cfg = loaded.config;
  const { polled, choices } = plannedReads(cfg);
  const pages = (endpoint: EndpointId) => openOrderPages(endpoint, cfg.risk.maxOpenOrdersPerSymbol, cfg.exchange.maxPages);
  const uses: Use[] = [];
  for (const poll of POLLS) for (const r of pollCycle(poll, polled, choices, pages)) uses.push({ poll: poll.periodKey, ...r });
  for (const w of WATCH_POLLS) if (polled[w.surface].length > 0) uses.push({ poll: w.periodKey, endpoint: w.endpoint, times: 1 });
  return uses;
}

/** The weight of one use in a pool (its endpoint's charge there, 0 when it is not charged there). */
function weightIn(u: Use, pool: 'ip' | 'uid'): number {
  return chargesOf(ENDPOINTS[u.endpoint]).find((c) => c.kind === pool)?.weight ?? 0;
}

/** The weight one use takes of a pool's budget window: its weight × requests a cycle × cycles a window. */
function perWindow(cfg: Config, u: Use, pool: 'ip' | 'uid'): number {
  return (weightIn(u, pool) * u.times * cfg.exchange.rateLimit[ENDPOINTS[u.endpoint].surface][pool].windowMs) / cfg.daemon.polls[u.poll];
}

/**
 * What one process's polls may use of each pool's budget window: `daemon.pollShare` of its usable part, split
 * between the `exchange.rateLimit.processes` processes the budgets were planned for.
 */
function allowedOf(cfg: Config, surface: Surface, pool: 'ip' | 'uid'): number {
  const rl = cfg.exchange.rateLimit;
  return (rl[surface][pool].budget * rl.usableFraction * cfg.daemon.pollShare) / rl.processes;
}

/** How the share is described: pollShare, and the processes it is split between when more than one. */
function shareText(cfg: Config): string {
  const processes = cfg.exchange.rateLimit.processes;
  return `pollShare ${cfg.daemon.pollShare}${processes > 1 ? ` ÷ ${processes} processes` : ''}`;
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
      const allowed = allowedOf(cfg, surface, pool);
      const per = new Map<Use['poll'], { weight: number; what: string[] }>();
      for (const u of uses) {
        if (ENDPOINTS[u.endpoint].surface !== surface) continue;
        const w = weightIn(u, pool);
        const p = per.get(u.poll) ?? { weight: 0, what: [] };
        p.weight += perWindow(cfg, u, pool);
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
        message: `polling uses ${Math.ceil(total)} ${pool.toUpperCase()} weight per ${budget.windowMs} ms on ${surface}, more than its share ${Math.floor(allowed)} (${shareText(cfg)} of ${rl.usableFraction} × ${budget.budget}); slow down ${worst} (${Math.ceil(use.weight)} per window: ${use.what.join(', ')} per cycle)`,
      });
    }
  }
  return issues;
}

/**
 * The polling plan as `sextant plan` prints it: how tickers are read (and why), then each poll's requests per cycle
 * and the weight they take per window of each pool, against the share polls may use.
 */
export function describePollingPlan(loaded: LoadedConfig): string[] {
  const cfg = loaded.config;
  const rl = cfg.exchange.rateLimit;
  const uses = pollRequests(loaded);
  const { polled, choices } = plannedReads(cfg);
  const futures = polled.futures.length;
  const lines: string[] = [];
  const f2 = ENDPOINTS.F2.weight.ip;
  const f12 = ENDPOINTS.F12.weight.ip;
  lines.push(
    `  futures tickers: ${choices.futuresTickers} (${cfg.exchange.futuresTickers}${cfg.exchange.futuresTickers === 'auto' ? `: ${futures} contract(s) × F12 ${f12} ${choices.futuresTickers === 'F12' ? '<' : '≥'} F2 ${f2}` : ''}); spot tickers: ${choices.spotTickers === 'depth' ? 'S11 + S13 (bid and ask from the book)' : 'S9 (last trade, no bid or ask)'}; spot open orders: ${choices.spotOpenOrders}`,
  );
  for (const u of uses) {
    const e = ENDPOINTS[u.endpoint];
    const uid = perWindow(cfg, u, 'uid');
    lines.push(
      `  ${u.poll.padEnd(12)} ${u.endpoint.padEnd(4)} ${String(u.times).padStart(3)} request(s) per ${cfg.daemon.polls[u.poll]} ms: ${Math.ceil(perWindow(cfg, u, 'ip'))} IP${uid > 0 ? ` / ${Math.ceil(uid)} UID` : ''} weight per ${rl[e.surface].ip.windowMs} ms on ${e.surface}`,
    );
  }
  for (const surface of ['spot', 'futures'] as const) {
    for (const pool of ['ip', 'uid'] as const) {
      const used = uses.filter((u) => ENDPOINTS[u.endpoint].surface === surface).reduce((sum, u) => sum + perWindow(cfg, u, pool), 0);
      if (used > 0)
        lines.push(
          `  ${surface.padEnd(8)} ${pool.toUpperCase().padEnd(3)} polls take ${Math.ceil(used)} of ${Math.floor(allowedOf(cfg, surface, pool))} allowed per ${rl[surface][pool].windowMs} ms (${shareText(cfg)})`,
        );
    }
  }
  return lines;
}
