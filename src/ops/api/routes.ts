// The control API's routes as data: method, path, what they take and answer (zod schemas, from which the requests
// are checked and the OpenAPI document is made) and the handler over the Control. Reads are snapshots; commands
// pass through Control, which journals them with who gave them and why before they act.
import type { z } from 'zod';
import type { Actor, CommandResult, Control } from '../control.js';
import {
  balanceSchema,
  commandOkSchema,
  equityPointSchema,
  equityQuery,
  eventSchema,
  eventsQuery,
  fillSchema,
  fillsQuery,
  forceExitBody,
  noQuery,
  optionalReasonBody,
  orderDetailSchema,
  orderParams,
  orderSchema,
  ordersQuery,
  pauseBody,
  positionSchema,
  profitWindowSchema,
  reasonBody,
  statusSchema,
  strategyParams,
  strategySchema,
  symbolPerformanceSchema,
  divergenceSchema,
} from './schemas.js';
import { renderDivergence } from '../../report/divergence-page.js';

/** What a handler answers: a status and a JSON body. */
export interface Reply {
  status: number;
  body: unknown;
}

export interface RouteInput {
  control: Control;
  actor: Actor;
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: Record<string, unknown>;
}

export interface Route {
  method: 'GET' | 'POST';
  /** Under /api/v1, fastify style (`:id`). */
  path: string;
  summary: string;
  /** read: GET, open like the reads; command: journaled, may be switched off. */
  kind: 'read' | 'command';
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /** The 200 answer's schema; `stream`: server-sent events (handled by sse.ts, not `handle`). */
  ok: z.ZodType | 'stream' | 'document' | 'page';
  /** The error statuses it may answer besides 401 (and 403 for commands). */
  errors: number[];
  handle?: (input: RouteInput) => Promise<Reply> | Reply;
}

export const API_PREFIX = '/api/v1';

const notFound = (what: string): Reply => ({ status: 404, body: { error: what } });

/** A command's result as an answer: 200 with its detail, or its refusal's status with the error. */
function answer(result: CommandResult): Reply {
  return result.ok ? { status: 200, body: { ok: true, detail: result.detail } } : { status: result.status, body: { error: result.error } };
}

/** Undefined when the strategy is configured, else the 404 to answer. */
function unknownStrategy(control: Control, id: string | undefined): Reply | undefined {
  if (id === undefined || control.strategies().some((s) => s.id === id)) return undefined;
  return notFound(`no strategy ${id}`);
}

const NO_SHADOW: Reply = { status: 404, body: { error: 'no shadow runs: set shadow.enabled in a live or dry-run config' } };

const reasonOf = (body: Record<string, unknown>) => (typeof body.reason === 'string' && body.reason !== '' ? body.reason : undefined);

export const ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: '/status',
    summary: 'Mode, venue, uptime, trading state and latches, fence, reconciliation, rate budget, poll ages',
    kind: 'read',
    query: noQuery,
    ok: statusSchema,
    errors: [400],
    handle: async ({ control }) => {
      await control.refresh?.();
      return { status: 200, body: control.status() };
    },
  },
  {
    method: 'GET',
    path: '/strategies',
    summary: 'Strategy instances: params, state, errors, PnL from their fills, open orders, positions',
    kind: 'read',
    query: noQuery,
    ok: strategySchema.array(),
    errors: [400],
    handle: ({ control }) => ({ status: 200, body: control.strategies() }),
  },
  {
    method: 'GET',
    path: '/orders',
    summary: 'Open orders (scope=open) or the recent ones of any state, newest first (scope=recent)',
    kind: 'read',
    query: ordersQuery,
    ok: orderSchema.array(),
    errors: [400, 404],
    handle: ({ control, query }) => {
      const q = query as z.infer<typeof ordersQuery>;
      return (
        unknownStrategy(control, q.strategy) ?? {
          status: 200,
          body: control.orders({ scope: q.scope, ...(q.strategy ? { strategyId: q.strategy } : {}), ...(q.limit ? { limit: q.limit } : {}) }),
        }
      );
    },
  },
  {
    method: 'GET',
    path: '/orders/:clientOid',
    summary: 'An order and its journal history',
    kind: 'read',
    params: orderParams,
    query: noQuery,
    ok: orderDetailSchema,
    errors: [400, 404],
    handle: ({ control, params }) => {
      const found = control.order(String(params.clientOid));
      return found ? { status: 200, body: found } : notFound(`no order ${String(params.clientOid)} in the journal`);
    },
  },
  {
    method: 'GET',
    path: '/fills',
    summary: 'Fills, oldest first (the latest `limit`)',
    kind: 'read',
    query: fillsQuery,
    ok: fillSchema.array(),
    errors: [400, 404],
    handle: ({ control, query }) => {
      const q = query as z.infer<typeof fillsQuery>;
      return (
        unknownStrategy(control, q.strategy) ?? {
          status: 200,
          body: control.fills({ ...(q.strategy ? { strategyId: q.strategy } : {}), ...(q.limit ? { limit: q.limit } : {}) }),
        }
      );
    },
  },
  {
    method: 'GET',
    path: '/balances',
    summary: 'Balances as last polled',
    kind: 'read',
    query: noQuery,
    ok: balanceSchema.array(),
    errors: [400],
    handle: ({ control }) => ({ status: 200, body: control.balances() }),
  },
  {
    method: 'GET',
    path: '/positions',
    summary: 'Futures positions as last polled',
    kind: 'read',
    query: noQuery,
    ok: positionSchema.array(),
    errors: [400],
    handle: ({ control }) => ({ status: 200, body: control.positions() }),
  },
  {
    method: 'GET',
    path: '/equity',
    summary: "The journal's equity series of each surface, oldest first",
    kind: 'read',
    query: equityQuery,
    ok: equityPointSchema.array(),
    errors: [400],
    handle: ({ control, query }) => {
      const q = query as z.infer<typeof equityQuery>;
      return { status: 200, body: control.equity(q.since !== undefined ? { sinceMs: q.since } : {}) };
    },
  },
  {
    method: 'GET',
    path: '/profit',
    summary: 'Realised PnL and fees per strategy from its fills: today (since 00:00 UTC), the last 7 days, all time; each with its total',
    kind: 'read',
    query: noQuery,
    ok: profitWindowSchema.array(),
    errors: [400],
    handle: ({ control }) => ({ status: 200, body: control.profit() }),
  },
  {
    method: 'GET',
    path: '/performance',
    summary: 'Realised PnL per symbol (every strategy, all time), best first',
    kind: 'read',
    query: noQuery,
    ok: symbolPerformanceSchema.array(),
    errors: [400],
    handle: ({ control }) => ({ status: 200, body: control.performance() }),
  },
  {
    method: 'GET',
    path: '/events',
    summary: 'The latest events, newest last',
    kind: 'read',
    query: eventsQuery,
    ok: eventSchema.array(),
    errors: [400],
    handle: ({ control, query }) => ({ status: 200, body: control.recentEvents((query as z.infer<typeof eventsQuery>).limit) }),
  },
  {
    method: 'GET',
    path: '/shadow',
    summary: 'How live differs from the shadow (config shadow): each live order with its simulated twin, the PnL of both and the causes named',
    kind: 'read',
    query: noQuery,
    ok: divergenceSchema,
    errors: [400, 404],
    handle: ({ control }) => {
      const report = control.shadow?.();
      return report ? { status: 200, body: report } : NO_SHADOW;
    },
  },
  {
    method: 'GET',
    path: '/shadow/page',
    summary: 'The divergence report as a page',
    kind: 'read',
    query: noQuery,
    ok: 'page',
    errors: [400, 404],
    handle: ({ control }) => {
      const report = control.shadow?.();
      return report ? { status: 200, body: renderDivergence(report) } : NO_SHADOW;
    },
  },
  {
    method: 'GET',
    path: '/stream',
    summary: 'Server-sent events: `event: <kind>` and `data: <event JSON>` per event, a comment line as heartbeat every 15 s',
    kind: 'read',
    query: noQuery,
    ok: 'stream',
    errors: [400],
  },
  {
    method: 'GET',
    path: '/openapi.json',
    summary: 'This document',
    kind: 'read',
    query: noQuery,
    ok: 'document',
    errors: [],
  },
  {
    method: 'POST',
    path: '/strategies/:id/pause',
    summary: 'No more updates to the strategy, so no new intents; its open orders canceled when cancelOrders',
    kind: 'command',
    params: strategyParams,
    body: pauseBody,
    ok: commandOkSchema,
    errors: [400, 404, 409],
    handle: async ({ control, params, body, actor }) => {
      const b = body as z.infer<typeof pauseBody>;
      return answer(await control.pause(String(params.id), { cancelOrders: b.cancelOrders, ...(b.reason ? { reason: b.reason } : {}) }, actor));
    },
  },
  {
    method: 'POST',
    path: '/strategies/:id/resume',
    summary: 'The strategy takes updates again',
    kind: 'command',
    params: strategyParams,
    body: optionalReasonBody,
    ok: commandOkSchema,
    errors: [400, 404, 409],
    handle: async ({ control, params, body, actor }) => answer(await control.resume(String(params.id), actor, reasonOf(body))),
  },
  {
    method: 'POST',
    path: '/strategies/:id/cancel-orders',
    summary: 'Cancels every open order of the strategy (its stops that protect a position stay)',
    kind: 'command',
    params: strategyParams,
    body: optionalReasonBody,
    ok: commandOkSchema,
    errors: [400, 404, 409],
    handle: async ({ control, params, body, actor }) => answer(await control.cancelOrders(String(params.id), actor, reasonOf(body))),
  },
  {
    method: 'POST',
    path: '/strategies/:id/force-exit',
    summary:
      'Pauses the strategy (it stays paused), cancels its orders on the symbol and closes what it holds there at market, as its own order through the risk gate; 409 when it holds nothing there',
    kind: 'command',
    params: strategyParams,
    body: forceExitBody,
    ok: commandOkSchema,
    errors: [400, 404, 409],
    handle: async ({ control, params, body, actor }) => {
      const b = body as z.infer<typeof forceExitBody>;
      return answer(await control.forceExit(String(params.id), b.symbol, actor, b.reason ? b.reason : undefined));
    },
  },
  {
    method: 'POST',
    path: '/reload',
    summary: "The strategies' params from the config file again, all or nothing (as on SIGHUP)",
    kind: 'command',
    body: optionalReasonBody,
    ok: commandOkSchema,
    errors: [400, 409],
    handle: async ({ control, body, actor }) => answer(await control.reload(actor, reasonOf(body))),
  },
  {
    method: 'POST',
    path: '/trading/halt',
    summary: 'Latches halted (cancels only) until reset; the kill action of risk.onKill follows',
    kind: 'command',
    body: reasonBody,
    ok: commandOkSchema,
    errors: [400, 409],
    handle: async ({ control, body, actor }) => answer(await control.halt(String(body.reason), actor)),
  },
  {
    method: 'POST',
    path: '/trading/reduce',
    summary: 'Latches reducing (only orders that shrink exposure) until reset',
    kind: 'command',
    body: reasonBody,
    ok: commandOkSchema,
    errors: [400, 409],
    handle: async ({ control, body, actor }) => answer(await control.reduce(String(body.reason), actor)),
  },
  {
    method: 'POST',
    path: '/trading/reset',
    summary: 'Clears every latch (kill switches, reducing): trading resumes',
    kind: 'command',
    body: reasonBody,
    ok: commandOkSchema,
    errors: [400, 409],
    handle: async ({ control, body, actor }) => answer(await control.reset(String(body.reason), actor)),
  },
  {
    method: 'POST',
    path: '/trading/flatten',
    summary: 'Latches halted and flattens now: every order canceled, futures positions closed at market',
    kind: 'command',
    body: reasonBody,
    ok: commandOkSchema,
    errors: [400, 409],
    handle: async ({ control, body, actor }) => answer(await control.flatten(String(body.reason), actor)),
  },
  {
    method: 'POST',
    path: '/trading/clear-auth-halt',
    summary:
      'Clears the authentication halt once the keys are fixed: signed requests go again, and a signed read probes the keys before the fence lifts; 409 while it fails (the fence stays)',
    kind: 'command',
    body: optionalReasonBody,
    ok: commandOkSchema,
    errors: [400, 409],
    handle: async ({ control, body, actor }) => answer(await control.clearAuthHalt(actor, reasonOf(body))),
  },
];
