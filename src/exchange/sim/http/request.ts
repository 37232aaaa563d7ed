// Reading a request as the venue does: the URL split into path and query, query or JSON body parameters, typed
// parameter readers that refuse with the venue's codes, and the order items of S6 and F6.
import { isTimeframe, type Timeframe } from '../../../domain/candles.js';
import { Decimal } from '../../../domain/decimal.js';
import type { Surface } from '../../../domain/market.js';
import { futuresSide } from '../../../domain/order.js';
import type { OrderRequest } from '../../client.js';
import { CANDLE_PERIODS, FUTURES_TYPE_FROM_CODE, TIF_FROM_CODE, TIF_FROM_NAME, type FuturesAction } from '../../wire/enums.js';
import { parseJson } from '../../wire/json.js';
import { CLIENT_OID_RE } from '../../wire/requests.js';
import { refusals } from '../refusals.js';
import { shown } from '../../../util/shown.js';

/** A refusal answered in the venue's error envelope with this HTTP status and code. */
export class WireError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A request's parameters: the query of a GET, the JSON body of a POST. */
export type Params = Record<string, unknown>;

/** The path and the raw query (without '?') of a request URL. */
export function splitUrl(url: string): { path: string; query: string } {
  const q = url.indexOf('?');
  return q < 0 ? { path: url, query: '' } : { path: url.slice(0, q), query: url.slice(q + 1) };
}

export function parseQuery(query: string): Params {
  const out: Params = {};
  for (const [k, v] of new URLSearchParams(query)) out[k] = v;
  return out;
}

export function parseBody(body: string): Params {
  if (body === '') return {};
  let v: unknown;
  try {
    v = parseJson(body);
  } catch {
    throw new WireError(400, '40017', 'Parameter validation failed: body is not JSON');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new WireError(400, '40017', 'Parameter validation failed: body must be an object');
  return v as Params;
}

/** A required parameter as text (numbers and raw long ids are taken as their digits). */
export function str(params: Params, key: string, surface: Surface): string {
  const v = params[key];
  if (v === undefined || v === null || v === '') throw new WireError(400, '40019', `Parameter ${key} cannot be empty`);
  if (typeof v !== 'string' && typeof v !== 'number' && !(typeof v === 'object' && 'digits' in (v as object))) {
    throw new WireError(400, surface === 'spot' ? '40409' : '40020', `Parameter ${key} is invalid`);
  }
  return shown(v);
}

/** An optional parameter as text. */
export function optStr(params: Params, key: string): string | undefined {
  return params[key] === undefined ? undefined : shown(params[key]);
}

export function dec(params: Params, key: string, surface: Surface): Decimal {
  const d = Decimal.parse(str(params, key, surface));
  if (!d) throw new WireError(400, surface === 'spot' ? '40409' : '40020', `Parameter ${key} is invalid`);
  return d;
}

export function optList(params: Params, key: string): string[] | undefined {
  const v = params[key];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.length === 0) throw new WireError(400, '40020', `Parameter ${key} is invalid`);
  return v.map((x) => String(x));
}

export function batch(params: Params, key: string, max: number, surface: Surface): Params[] {
  const v = params[key];
  if (!Array.isArray(v) || v.length === 0) throw new WireError(400, '40019', `Parameter ${key} cannot be empty`);
  if (v.length > max) throw new WireError(400, '40017', `Parameter validation failed: at most ${max} orders per batch`);
  if (v.some((x) => typeof x !== 'object' || x === null)) throw new WireError(400, surface === 'spot' ? '40409' : '40020', `Parameter ${key} is invalid`);
  return v as Params[];
}

/** A page index (from 0) and size under the endpoint's names, with the default size and the largest allowed. */
export function paging(params: Params, indexKey: string, sizeKey: string, defaultSize: number, maxSize: number): { pageIndex: number; pageSize: number } {
  const pageIndex = params[indexKey] === undefined ? 0 : Number(params[indexKey]);
  const pageSize = params[sizeKey] === undefined ? defaultSize : Number(params[sizeKey]);
  if (!Number.isInteger(pageIndex) || pageIndex < 0) throw new WireError(400, '40020', `Parameter ${indexKey} is invalid`);
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > maxSize) throw new WireError(400, '40020', `Parameter ${sizeKey} is invalid`);
  return { pageIndex, pageSize };
}

/** The venue's refusal of a malformed parameter value: spot 40409 "Incorrect format", futures 40020. */
export function invalidParam(surface: Surface, key: string): WireError {
  const refusal = refusals.param(surface, key);
  return new WireError(400, refusal.code, refusal.message);
}

/** An optional whole-number parameter (`limit`): `absent` when not given, refused unless `allowed`. */
export function countParam(params: Params, key: string, surface: Surface, absent: number, allowed: (n: number) => boolean): number {
  if (params[key] === undefined) return absent;
  const v = Number(params[key]);
  if (!Number.isInteger(v) || !allowed(v)) throw invalidParam(surface, key);
  return v;
}

/** An optional parameter that takes one of a few values: `absent` when not given. */
export function choiceParam<T extends string>(params: Params, key: string, surface: Surface, choices: readonly T[], absent: T): T {
  if (params[key] === undefined) return absent;
  const v = shown(params[key]);
  if (!(choices as readonly string[]).includes(v)) throw invalidParam(surface, key);
  return v as T;
}

/** A required candle period (S10 `period`, F10/F11 `granularity`) the endpoint takes. */
export function periodParam(params: Params, key: string, endpoint: keyof typeof CANDLE_PERIODS, surface: Surface): Timeframe {
  const v = str(params, key, surface);
  if (!isTimeframe(v) || !CANDLE_PERIODS[endpoint].has(v)) throw invalidParam(surface, key);
  return v;
}

/** An optional millisecond time parameter (a bound of a window). */
export function timeParam(params: Params, key: string, absent: number): number {
  if (params[key] === undefined) return absent;
  const v = Number(params[key]);
  if (!Number.isSafeInteger(v) || v < 0) throw new WireError(400, '40020', `Parameter ${key} is invalid`);
  return v;
}

/** A spot S6 item; a bad item refuses the whole request. */
export function spotItem(item: Params): OrderRequest {
  const side = str(item, 'side', 'spot');
  const orderType = str(item, 'orderType', 'spot');
  const force = TIF_FROM_NAME[str(item, 'force', 'spot')];
  if (side !== 'buy' && side !== 'sell') throw new WireError(400, '40409', 'Incorrect format: side');
  if (orderType !== 'limit' && orderType !== 'market') throw new WireError(400, '40409', 'Incorrect format: orderType');
  if (!force) throw new WireError(400, '40409', 'Incorrect format: force');
  const clientOid = str(item, 'clientOrderId', 'spot');
  if (!CLIENT_OID_RE.test(clientOid)) throw new WireError(400, '40305', 'client_oid exceeds 40 characters or is in an invalid format');
  return {
    clientOid,
    side,
    kind: orderType,
    timeInForce: orderType === 'market' ? 'ioc' : force,
    size: dec(item, 'quantity', 'spot'),
    ...(orderType === 'limit' ? { price: dec(item, 'price', 'spot') } : {}),
  };
}

/** A futures `type` code (1 open long ... 4 close short). */
export function typeCode(code: string): FuturesAction {
  const action = FUTURES_TYPE_FROM_CODE[code];
  if (!action) throw new WireError(400, '40020', 'Parameter type is invalid');
  return action;
}

/** A futures F6 item, or its refusal (the item fails alone, the batch goes on). */
export function futuresItem(item: Params): { req: OrderRequest } | { clientOid: string; refusal: { code: string; message: string } } {
  const clientOid = shown(item.client_oid ?? '');
  try {
    if (!CLIENT_OID_RE.test(clientOid)) throw new WireError(400, '40020', 'Parameter client_oid is invalid');
    const t = typeCode(str(item, 'type', 'futures'));
    const tif = TIF_FROM_CODE[str(item, 'order_type', 'futures')];
    if (!tif) throw new WireError(400, '40020', 'Parameter order_type is invalid');
    const match = str(item, 'match_price', 'futures');
    if (match !== '0' && match !== '1') throw new WireError(400, '40020', 'Parameter match_price is invalid');
    const side = futuresSide(t.positionSide, t.reduceOnly);
    const price = dec(item, 'price', 'futures');
    return {
      req: {
        clientOid,
        side,
        kind: match === '1' ? 'market' : 'limit',
        timeInForce: match === '1' ? 'ioc' : tif,
        size: dec(item, 'size', 'futures'),
        positionSide: t.positionSide,
        reduceOnly: t.reduceOnly,
        ...(match === '0' ? { price } : {}),
      },
    };
  } catch (err) {
    if (err instanceof WireError) return { clientOid, refusal: { code: err.code, message: err.message } };
    throw err;
  }
}
