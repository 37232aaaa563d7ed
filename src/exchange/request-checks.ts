// What is refused before anything is sent, by the live client, the in-process simulator and the meter alike: a
// request outside the venue's documented limits (page sizes, depth gears, batch sizes, client ids, order ids, a time
// window ending before it starts), and a candle read no endpoint serves (spot history, a timeframe the endpoint lacks).
import type { CandlePriceType, Timeframe } from '../domain/candles.js';
import type { Surface } from '../domain/market.js';
import { ENDPOINTS, type EndpointId } from './endpoints.js';
import { ExchangeError } from './errors.js';
import { CANDLE_PERIODS } from './wire/enums.js';
import { CLIENT_OID_RE, type RequestOf } from './wire/requests.js';
import { shown } from '../util/shown.js';

/** The ExchangeError of a request refused before sending (never reached the venue: its outcome is known). */
export function refusedBeforeSending(endpoint: EndpointId, reason: string): ExchangeError {
  return new ExchangeError('bad-request', `rejected before sending: ${reason}`, { endpoint, sent: false });
}

/** A count parameter as given: a number, or digits (as `sextant api` passes query values). */
function countOf(raw: unknown): unknown {
  return typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : raw;
}

/** Checks a request against the venue's documented limits before anything is sent. */
export function checkRequest<E extends EndpointId>(id: E, params: RequestOf<E>): void {
  const e = ENDPOINTS[id];
  const p = params as Record<string, unknown>;
  const fail = (msg: string): never => {
    throw refusedBeforeSending(id, msg);
  };
  for (const key of ['pageSize', 'limit'] as const) {
    const v = countOf(p[key]);
    if (v === undefined) continue;
    const whole = typeof v === 'number' && Number.isInteger(v);
    if (e.maxPageSize !== undefined && (!whole || v < 1 || v > e.maxPageSize)) fail(`${key} must be an integer from 1 to ${e.maxPageSize}, got ${shown(v)}`);
    if (!whole || v < 1) fail(`${key} must be a positive integer, got ${shown(v)}`);
  }
  const limit = countOf(p.limit);
  if (limit !== undefined && e.limitChoices !== undefined && !e.limitChoices.includes(limit as number)) {
    fail(`limit must be one of ${e.limitChoices.join(', ')}, got ${shown(limit)}`);
  }
  const [start, end] = [countOf(p.startTime), countOf(p.endTime)];
  for (const [key, v] of [
    ['startTime', start],
    ['endTime', end],
  ] as const) {
    if (v !== undefined && (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)) fail(`${key} must be a millisecond time, got ${shown(v)}`);
  }
  if (typeof start === 'number' && typeof end === 'number' && start > end) fail(`startTime ${start} is after endTime ${end}`);
  const batch = (p.orderList ?? p.orderDataList ?? p.orderIds ?? p.clientOids ?? p.ids ?? p.cids) as unknown[] | undefined;
  if (Array.isArray(batch)) {
    if (batch.length === 0) fail('empty batch');
    if (e.maxBatch !== undefined && batch.length > e.maxBatch) fail(`${batch.length} items, at most ${e.maxBatch} per request`);
  }
  const oids: unknown[] = [];
  if (Array.isArray(p.orderList)) for (const item of p.orderList as Array<Record<string, unknown>>) oids.push(item.clientOrderId);
  if (Array.isArray(p.orderDataList)) for (const item of p.orderDataList as Array<Record<string, unknown>>) oids.push(item.client_oid);
  if (id === 'F8' || id === 'F25') oids.push(p.client_oid);
  if (id === 'F23') oids.push(p.clientOrderId);
  for (const oid of oids)
    if (typeof oid !== 'string' || !CLIENT_OID_RE.test(oid)) fail(`client id ${JSON.stringify(oid)} is not 1-40 characters of [A-Za-z0-9_]`);
  if (
    (id === 'S3' && p.orderId === undefined && p.clientOrderId === undefined) ||
    ((id === 'F18' || id === 'F24') && !p.orderId) ||
    (id === 'F26' && !p.orderId && !p.clientOid) ||
    ((id === 'S4' || id === 'F7') && batch === undefined)
  ) {
    fail('an order id or a client id is required');
  }
  if (id === 'F24' && !/^\d+$/.test(String(p.orderId))) fail(`order id ${JSON.stringify(String(p.orderId))} is not an integer`);
}

/**
 * The endpoint a candle read goes to (spot S10; futures F10, or F11 for history), once the read is one the venue
 * serves: spot has no history candles in v2 (S10 serves the latest rows only), F10/F11 have no 2h, 6h or 8h, and
 * mark or index price candles exist for futures only.
 */
export function candleEndpoint(
  surface: Surface,
  symbol: string,
  timeframe: Timeframe,
  history: boolean,
  priceType: CandlePriceType = 'last',
): 'S10' | 'F10' | 'F11' {
  if (surface === 'spot' && history)
    throw refusedBeforeSending('F11', `spot has no history candles in v2 (${symbol} is a spot pair; S10 serves its latest candles only)`);
  const id = surface === 'spot' ? 'S10' : history ? 'F11' : 'F10';
  if (!CANDLE_PERIODS[id].has(timeframe)) {
    throw refusedBeforeSending(id, `${id} has no ${timeframe} candles (${id === 'S10' ? 'period' : 'granularity'}: ${[...CANDLE_PERIODS[id]].join(', ')})`);
  }
  if (surface === 'spot' && priceType !== 'last') throw refusedBeforeSending(id, `${id} has no ${priceType} price candles (futures only)`);
  return id;
}
