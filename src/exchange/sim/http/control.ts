// The simulator's control paths under /sim/ (tests, fault injection, audits): GET /sim/stats, GET /sim/state,
// POST /sim/faults, POST /sim/market. Not part of the venue's protocol.
import type http from 'node:http';
import type { Surface } from '../../../domain/market.js';
import { parseJson, stringifyJson } from '../../wire/json.js';
import type { MatchingEngine } from '../engine.js';
import { SyntheticMarket, type MarketSource } from '../market.js';
import type { FaultSettings, ScriptedFault } from './faults.js';
import { send } from './respond.js';

/** What GET /sim/stats answers. */
export interface SimStats {
  requests: Record<string, number>;
  rejected429: number;
  authFailures: number;
  /**
   * Per pool charged so far, keyed `pool@address` (IP pools) or `pool@account` (UID and order pools): the current
   * aligned window's index and the weight used in it, the pool's budget, the most weight any interval of the
   * window's length saw (sliding, aligned or not), and the weight charged since the start. A request's charge is
   * the change in `spent`: `used` starts again from 0 in each window, so its change across a boundary is not.
   */
  windows: Record<string, { window: number; used: number; budget: number; most: number; spent: number }>;
  engine: MatchingEngine['stats'];
}

/** The parts of the simulator the control paths read and steer. */
export interface ControlTarget {
  readonly engine: MatchingEngine;
  readonly market: MarketSource;
  readonly faults: FaultSettings;
  snapshot(): SimStats;
  /** Applies every market tick up to the venue's now. */
  catchUp(): void;
  venueNowMs(): number;
}

/** What POST /sim/faults takes: settings to change, scripted faults to add, a 429 storm's length. */
type FaultsBody = Partial<FaultSettings> & { script?: ScriptedFault[]; storm429Ms?: number };

export function control(target: ControlTarget, method: string, path: string, body: string, res: http.ServerResponse): void {
  if (method === 'GET' && path === '/sim/stats') return send(res, 200, stringifyJson(target.snapshot()));
  // The venue as it truly is, whatever read lag the faults impose: what an auditor compares a journal with.
  if (method === 'GET' && path === '/sim/state') return send(res, 200, stringifyJson(trueState(target)));
  if (method === 'POST' && path === '/sim/faults') {
    try {
      const change = parseJson(body || '{}') as FaultsBody;
      const faults = target.faults;
      if (typeof change.latencyMs === 'number') faults.latencyMs = change.latencyMs;
      if (typeof change.clockSkewMs === 'number') faults.clockSkewMs = change.clockSkewMs;
      if (typeof change.visibilityLagMs === 'number') faults.visibilityLagMs = change.visibilityLagMs;
      if (typeof change.storm429Ms === 'number') faults.storm429UntilMs = target.venueNowMs() + change.storm429Ms;
      if (typeof change.refuseKeys === 'boolean') faults.refuseKeys = change.refuseKeys;
      if (Array.isArray(change.script)) faults.scripted.push(...change.script);
      return send(res, 200, stringifyJson(faults));
    } catch (err) {
      return send(res, 400, JSON.stringify({ error: (err as Error).message }));
    }
  }
  if (method === 'POST' && path === '/sim/market') {
    const market = target.market;
    try {
      const shift = parseJson(body || '{}') as { symbol?: unknown; shiftTicks?: unknown };
      if (!(market instanceof SyntheticMarket)) throw new Error('only the synthetic market can be shifted');
      if (typeof shift.symbol !== 'string' || typeof shift.shiftTicks !== 'number') throw new Error('expected {"symbol": string, "shiftTicks": number}');
      target.catchUp();
      market.shift(shift.symbol, shift.shiftTicks);
      return send(res, 200, JSON.stringify({ ok: true }));
    } catch (err) {
      return send(res, 400, JSON.stringify({ error: (err as Error).message }));
    }
  }
  send(res, 404, JSON.stringify({ error: 'unknown control path' }));
}

/** Every open order and position, with no read lag. */
function trueState(target: ControlTarget) {
  target.catchUp();
  const engine = target.engine;
  const openOrders = (['spot', 'futures'] as const).flatMap((surface: Surface) =>
    engine.openOrders(surface).map((order) => ({ surface, symbol: order.symbol, orderId: order.orderId, clientOid: order.clientOid, status: order.status })),
  );
  const positions = engine
    .specs('futures')
    .flatMap((spec) => engine.positions(spec.symbol).map((position) => ({ symbol: position.symbol, side: position.side, size: position.size.toString() })));
  return { openOrders, positions };
}
