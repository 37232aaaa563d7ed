// The simulator's futures endpoints of positions and the ledger: take-profit / stop-loss (F23, F24), one order placed
// or canceled (F25, F26), positions closed (F27), every order of a kind canceled (F28), every position (F29) and the
// bills (F30). Each reads its parameters as the venue does and answers the venue's shape; F24 alone answers in the
// envelope (routes.ts says which endpoints do).
import type { Decimal } from '../../../domain/decimal.js';
import { ENDPOINTS } from '../../endpoints.js';
import { LEDGER_KIND_OF, businessTypeOf } from '../../wire/enums.js';
import { CLIENT_OID_RE, F30_DEFAULT_LIMIT } from '../../wire/requests.js';
import { refusals, type Refusal } from '../refusals.js';
import { rawLong } from '../wire-format.js';
import { billRecord, positionRecord } from './account-records.js';
import { WireError, choiceParam, countParam, dec, futuresItem, invalidParam, str, timeParam, type Params } from './request.js';
import { specOf, type RouteContext, type RouteTable } from './route-context.js';

type ActionEndpointId = 'F23' | 'F24' | 'F25' | 'F26' | 'F27' | 'F28' | 'F29' | 'F30';

/** A parameter the venue's own examples send as "" or null when unset (F30): absent then. */
function given(params: Params, key: string): boolean {
  return params[key] !== undefined && params[key] !== null && params[key] !== '';
}

/** An optional contract: unknown symbols are the venue's parameter error. */
function optSymbol(ctx: RouteContext, params: Params): string | undefined {
  if (!given(params, 'symbol')) return undefined;
  return specOf(ctx.engine, str(params, 'symbol', 'futures'), 'futures').symbol;
}

/** `marginMode`: 1 cross (the default); the simulator trades cross margin only, so 3 (isolated) is refused. */
function crossOnly(params: Params): void {
  if (given(params, 'marginMode')) choiceParam(params, 'marginMode', 'futures', ['1'], '1');
}

/** `executePrice`: absent or 0, a market close; above 0, the limit price once triggered. */
function executePrice(params: Params): { executePrice?: Decimal } {
  if (!given(params, 'executePrice')) return {};
  const price = dec(params, 'executePrice', 'futures');
  if (price.isNegative()) throw invalidParam('futures', 'executePrice');
  return price.isZero() ? {} : { executePrice: price };
}

/** The venue's refusal as an error answer. */
function refused(refusal: Refusal): WireError {
  return new WireError(400, refusal.code, refusal.message);
}

export const FUTURES_ACTION_ROUTES: RouteTable<ActionEndpointId> = {
  // A refusal of the position's TP/SL itself (no position, off the tick, a client id in use) is `success: false`,
  // with no reason, as the venue answers; malformed parameters are its parameter errors.
  F23: (ctx, params) => {
    const symbol = specOf(ctx.engine, str(params, 'symbol', 'futures'), 'futures').symbol;
    const clientOid = str(params, 'clientOrderId', 'futures');
    if (!CLIENT_OID_RE.test(clientOid)) throw invalidParam('futures', 'clientOrderId');
    if (!given(params, 'planType')) throw new WireError(400, '40019', 'Parameter planType cannot be empty');
    const planType = choiceParam(params, 'planType', 'futures', ['profit_plan', 'loss_plan'], 'profit_plan');
    const positionSide = str(params, 'positionSide', 'futures');
    if (positionSide !== 'long' && positionSide !== 'short') throw invalidParam('futures', 'positionSide');
    crossOnly(params);
    const r = ctx.engine.placeTpSl({
      symbol,
      clientOid,
      role: planType === 'profit_plan' ? 'take-profit' : 'stop-loss',
      positionSide,
      size: dec(params, 'size', 'futures'),
      triggerPrice: dec(params, 'triggerPrice', 'futures'),
      ...executePrice(params),
    });
    return [r.ok ? { orderId: rawLong(r.orderId), success: true } : { orderId: 0, success: false }];
  },

  // The order id comes as a bare JSON number (or its digits); the order's contract is the one it was placed on.
  F24: (ctx, params) => {
    const orderId = str(params, 'orderId', 'futures');
    if (!/^\d+$/.test(orderId)) throw invalidParam('futures', 'orderId');
    const order = ctx.engine.rawOrder(orderId);
    if (!order || order.surface !== 'futures') throw refused(refusals.notFound('futures'));
    const watch = given(params, 'triggerPriceType') ? choiceParam(params, 'triggerPriceType', 'futures', ['1', '3'], '1') : undefined;
    const r = ctx.engine.modifyTpSl({
      symbol: order.symbol,
      orderId,
      triggerPrice: dec(params, 'triggerPrice', 'futures'),
      ...executePrice(params),
      ...(watch ? { triggerPriceType: watch === '3' ? ('mark' as const) : ('last' as const) } : {}),
    });
    if (!r.ok) throw refused(r.refusal);
    return '';
  },

  // One F6 item with its symbol; a refusal is the venue's error answer (there is no per-item result here).
  F25: (ctx, params) => {
    const symbol = specOf(ctx.engine, str(params, 'symbol', 'futures'), 'futures').symbol;
    crossOnly(params);
    const parsed = futuresItem(params);
    if ('refusal' in parsed) throw refused(parsed.refusal);
    const [r] = ctx.engine.place('futures', symbol, [parsed.req]);
    if (!r!.ok) throw refused(r!.refusal);
    return { client_oid: null, order_id: r!.orderId };
  },

  // By order id or by client id (the newest order carrying it), no symbol. A cancel that fails answers result false.
  F26: (ctx, params) => {
    const orderId = given(params, 'orderId') ? str(params, 'orderId', 'futures') : undefined;
    const clientOid = given(params, 'clientOid') ? str(params, 'clientOid', 'futures') : undefined;
    if (orderId === undefined && clientOid === undefined) throw new WireError(400, '40019', 'Parameter orderId cannot be empty');
    const failed = (refusal: Refusal) => ({
      order_id: orderId ?? '',
      client_oid: clientOid ?? null,
      result: false,
      err_code: refusal.code,
      err_msg: refusal.message,
    });
    const order = orderId !== undefined ? ctx.engine.rawOrder(orderId) : ctx.engine.findOrder(undefined, { clientOid: clientOid! });
    if (!order || order.surface !== 'futures') return failed(refusals.notFound('futures'));
    const [r] = ctx.engine.cancel('futures', order.symbol, orderId !== undefined ? { orderIds: [orderId] } : { clientOids: [clientOid!] });
    return r!.ok ? { order_id: r!.orderId, client_oid: clientOid ?? null, result: true, err_msg: null } : failed(r!.refusal);
  },

  F27: (ctx, params) =>
    ctx.engine.closePositions(optSymbol(ctx, params)).map((r) => ({
      positionId: rawLong(r.positionId),
      successOrderId: r.ok && r.orderId ? rawLong(r.orderId) : 0,
      errorMessage: r.error,
      success: r.ok,
    })),

  F28: (ctx, params) => {
    const symbol = optSymbol(ctx, params);
    if (!given(params, 'cancelOrderType')) throw new WireError(400, '40019', 'Parameter cancelOrderType cannot be empty');
    const kind = choiceParam(params, 'cancelOrderType', 'futures', ['normal', 'plan'], 'normal');
    return ctx.engine.cancelAllOrders(kind, symbol).map((r) => ({ orderId: r.orderId ? rawLong(r.orderId) : 0, success: r.ok }));
  },

  F29: (ctx) =>
    ctx.engine
      .positionViews()
      .map((view) => positionRecord(view, ctx.contractId(view.symbol), specOf(ctx.engine, view.symbol, 'futures').contractValue, ctx.fundingFeeSign, 'F29')),

  // Bills newest first. A businessType of a kind several types share is filtered from a page of that kind.
  F30: (ctx, params) => {
    const symbol = optSymbol(ctx, params);
    const coin = given(params, 'coin') ? str(params, 'coin', 'futures') : undefined;
    const businessType = given(params, 'businessType') ? str(params, 'businessType', 'futures') : undefined;
    const kind = businessType === undefined ? undefined : LEDGER_KIND_OF[businessType];
    if (businessType !== undefined && kind === undefined) throw invalidParam('futures', 'businessType');
    const startMs = given(params, 'startTime') ? timeParam(params, 'startTime', 0) : undefined;
    const endMs = given(params, 'endTime') ? timeParam(params, 'endTime', 0) : undefined;
    const limit = given(params, 'limit')
      ? countParam(params, 'limit', 'futures', F30_DEFAULT_LIMIT, (n) => n >= 1 && n <= ENDPOINTS.F30.maxPageSize!)
      : F30_DEFAULT_LIMIT;
    // The account holds USDT only.
    if (coin !== undefined && coin !== 'USDT') return { hasNextPage: false, items: [] };
    const shared = kind !== undefined && businessTypeOf(kind) === undefined;
    const page = ctx.engine.ledger({
      ...(symbol ? { symbol } : {}),
      ...(kind ? { kind } : {}),
      ...(startMs !== undefined ? { startMs } : {}),
      ...(endMs !== undefined ? { endMs } : {}),
      limit: shared ? ENDPOINTS.F30.maxPageSize! : limit,
    });
    const entries = shared ? page.entries.filter((e) => e.rawKind === businessType) : page.entries;
    return { hasNextPage: entries.length > limit || page.hasMore, items: entries.slice(0, limit).map(billRecord) };
  },
};
