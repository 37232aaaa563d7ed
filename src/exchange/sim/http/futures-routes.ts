// The simulator's futures endpoints (/capi/v2): each handler reads its parameters as the venue does and answers
// the bare body the venue sends; those of positions and the ledger (F23–F30) are in futures-action-routes.ts.
import type { ResponseOf } from '../../wire/responses.js';
import { ENDPOINTS } from '../../endpoints.js';
import { futuresTypeCode } from '../../wire/enums.js';
import { CLIENT_OID_RE } from '../../wire/requests.js';
import * as fmt from '../wire-format.js';
import { collateralRecord, positionRecord } from './account-records.js';
import { FUTURES_ACTION_ROUTES } from './futures-action-routes.js';
import { WireError, batch, choiceParam, countParam, dec, futuresItem, optList, optStr, paging, periodParam, str, timeParam, typeCode } from './request.js';
import { pageOf, specOf, type FuturesEndpointId, type RouteContext, type RouteTable } from './route-context.js';
import { shown } from '../../../util/shown.js';

/** F10 / F11 `priceType`. The simulator keeps one candle series: mark and index candles are the last-price ones. */
const PRICE_TYPES = ['LAST', 'MARK', 'INDEX'] as const;

/** The book of a futures symbol given as a parameter (the venue's refusal for an unknown one). */
function futuresBook(ctx: RouteContext, params: Record<string, unknown>) {
  const symbol = str(params, 'symbol', 'futures');
  specOf(ctx.engine, symbol, 'futures');
  return ctx.engine.book(symbol)!;
}

/**
 * F11: at most `limit` rows, the newest of the window the request describes as `ctx.f11Reading` reads it. Both
 * readings: startTime alone, the rows from it on; no bound, the latest rows. `both-bounds`: both bounds, the rows
 * between them; endTime alone, the latest rows. `end-time-first`: endTime given, the rows up to it. A replay market
 * has no rows before its first record: F11 answers what it has.
 */
function historyCandles(ctx: RouteContext, params: Record<string, unknown>): ResponseOf<'F11'> {
  const book = futuresBook(ctx, params);
  const granularity = periodParam(params, 'granularity', 'F11', 'futures');
  const limit = countParam(params, 'limit', 'futures', 100, (n) => n >= 1 && n <= ENDPOINTS.F11.maxPageSize!);
  choiceParam(params, 'priceType', 'futures', PRICE_TYPES, 'LAST');
  const startMs = timeParam(params, 'startTime', -1);
  const endMs = timeParam(params, 'endTime', -1);
  const candles = book.candles;
  let bars;
  if (ctx.f11Reading === 'end-time-first' && endMs >= 0) bars = candles.between(granularity, 0, endMs, limit);
  else if (startMs >= 0) bars = candles.between(granularity, startMs, endMs >= 0 ? endMs : Number.POSITIVE_INFINITY, limit);
  else bars = candles.latest(granularity, limit);
  return bars.map((bar) => fmt.candleRow(book, bar));
}

/** F3: the account, its one shared USDT collateral and every position. */
function accountList(ctx: RouteContext): ResponseOf<'F3'> {
  const { engine, nowMs } = ctx;
  return {
    account: {
      id: '1',
      user_id: '1',
      client_account_id: '1',
      is_system_account: false,
      default_fee_setting: null,
      contract_id_to_fee_setting: {},
      contract_id_to_mode_setting: {},
      contract_id_to_leverage_setting: {},
      create_order_rate_limit_per_minute: 0,
      create_order_delay_milliseconds: 0,
      extra_type: '',
      extra_data_json: '',
      status: 'NORMAL',
      created_time: '0',
      updated_time: String(nowMs),
    },
    collateral: [collateralRecord(engine.accountView(), nowMs, ctx.fundingFeeSign)],
    position: engine
      .positionViews()
      .map((view) => positionRecord(view, ctx.contractId(view.symbol), specOf(engine, view.symbol, 'futures').contractValue, ctx.fundingFeeSign, 'F3')),
    version: '1',
  };
}

export const FUTURES_ROUTES: RouteTable<FuturesEndpointId> = {
  F0: (ctx) => ({ epoch: (ctx.nowMs / 1000).toFixed(3), iso: new Date(ctx.nowMs).toISOString(), timestamp: ctx.nowMs }),

  F1: (ctx, params) => {
    const symbol = optStr(params, 'symbol');
    return ctx.engine
      .specs('futures')
      .filter((s) => !symbol || s.symbol === symbol)
      .map(fmt.futuresContract);
  },

  F2: (ctx) => ctx.engine.specs('futures').map((spec) => fmt.futuresTickerRecord(ctx.engine.book(spec.symbol)!)),

  F3: (ctx) => accountList(ctx),

  F4: (ctx, params) => {
    const spec = specOf(ctx.engine, str(params, 'symbol', 'futures'), 'futures');
    return ctx.engine.positionViews(spec.symbol).map((view) => positionRecord(view, ctx.contractId(spec.symbol), spec.contractValue, ctx.fundingFeeSign, 'F4'));
  },

  F5: (ctx, params) => {
    const symbol = optStr(params, 'symbol');
    if (symbol) specOf(ctx.engine, symbol, 'futures');
    const { pageIndex, pageSize } = paging(params, 'page', 'limit', 100, 100);
    const startMs = params.startTime === undefined ? -Infinity : Number(params.startTime);
    const endMs = params.endTime === undefined ? Infinity : Number(params.endTime);
    const all = ctx.engine
      .openOrders('futures', symbol)
      .filter(
        (order) =>
          ctx.visible(order) &&
          (params.orderId === undefined || order.orderId === shown(params.orderId)) &&
          order.createdAtMs >= startMs &&
          order.createdAtMs <= endMs,
      );
    return pageOf(all, pageIndex, pageSize).map((order) => fmt.futuresOrderRecord(ctx.engine, specOf(ctx.engine, order.symbol, 'futures'), order));
  },

  F10: (ctx, params) => {
    const book = futuresBook(ctx, params);
    const granularity = periodParam(params, 'granularity', 'F10', 'futures');
    const limit = countParam(params, 'limit', 'futures', 100, (n) => n >= 1 && n <= ENDPOINTS.F10.maxPageSize!);
    choiceParam(params, 'priceType', 'futures', PRICE_TYPES, 'LAST');
    return book.candles.latest(granularity, limit).map((bar) => fmt.candleRow(book, bar));
  },

  F11: historyCandles,

  F12: (ctx, params) => fmt.futuresTickerRecord(futuresBook(ctx, params)),

  F13: (ctx, params) => {
    const book = futuresBook(ctx, params);
    const limit = countParam(params, 'limit', 'futures', 15, (n) => ENDPOINTS.F13.limitChoices!.includes(n));
    return fmt.depthRecord(book, limit, ctx.nowMs);
  },

  F14: (ctx, params) => {
    const symbol = optStr(params, 'symbol');
    const specs = symbol ? [specOf(ctx.engine, symbol, 'futures')] : ctx.engine.specs('futures');
    const { funding } = ctx.engine;
    return specs.map((spec) => ({
      symbol: spec.symbol,
      fundingRate: funding.currentRate(spec.symbol, ctx.nowMs).toString(),
      collectCycle: funding.cycleMinutes(spec.symbol),
      timestamp: ctx.nowMs,
    }));
  },

  F15: (ctx, params) => {
    const symbol = futuresBook(ctx, params).inst.symbol;
    return { symbol, fundingTime: ctx.engine.funding.nextSettlementMs(symbol, ctx.nowMs) };
  },

  F16: (ctx, params) => {
    const symbol = futuresBook(ctx, params).inst.symbol;
    const limit = countParam(params, 'limit', 'futures', 10, (n) => n >= 1 && n <= ENDPOINTS.F16.maxPageSize!);
    return ctx.engine.funding.history(symbol, ctx.nowMs, limit).map((s) => ({ symbol, fundingRate: s.rate.toString(), fundingTime: s.settlementMs }));
  },

  // The engine's mark and index, as the tickers show them.
  F17: (ctx, params) => {
    const symbol = futuresBook(ctx, params).inst.symbol;
    const kind = choiceParam(params, 'priceType', 'futures', ['MARK', 'INDEX'], 'INDEX');
    const price = kind === 'MARK' ? ctx.engine.markPrice(symbol) : ctx.engine.indexPrice(symbol);
    return { symbol, index: price!.toString(), timestamp: String(ctx.nowMs) };
  },

  F21: (ctx, params) => {
    const symbol = optStr(params, 'symbol');
    if (symbol) specOf(ctx.engine, symbol, 'futures');
    const { pageIndex, pageSize } = paging(params, 'page', 'limit', 100, ENDPOINTS.F21.maxPageSize!);
    const orderId = optStr(params, 'orderId');
    const startMs = timeParam(params, 'startTime', -Infinity);
    const endMs = timeParam(params, 'endTime', Infinity);
    const all = ctx.engine
      .pendingTriggers(symbol)
      .filter(
        (order) => ctx.visible(order) && (orderId === undefined || order.orderId === orderId) && order.createdAtMs >= startMs && order.createdAtMs <= endMs,
      );
    return pageOf(all, pageIndex, pageSize).map((order) => fmt.planOrderRecord(ctx.engine, order));
  },

  F22: (ctx, params) => {
    const symbol = futuresBook(ctx, params).inst.symbol;
    const { pageSize } = paging(params, 'page', 'pageSize', 100, ENDPOINTS.F22.maxPageSize!);
    const startMs = timeParam(params, 'startTime', -Infinity);
    const endMs = timeParam(params, 'endTime', Infinity);
    const delegateType = params.delegateType === undefined ? undefined : choiceParam(params, 'delegateType', 'futures', ['1', '2', '3', '4'], '1');
    const all = ctx.engine
      .finishedTriggers(symbol)
      .filter(
        (order) =>
          ctx.visible(order) &&
          order.createdAtMs >= startMs &&
          order.createdAtMs <= endMs &&
          (delegateType === undefined || futuresTypeCode(order.positionSide!, order.reduceOnly) === delegateType),
      );
    return { list: all.slice(0, pageSize).map((order) => fmt.planOrderRecord(ctx.engine, order)), nextPage: all.length > pageSize };
  },

  F18: (ctx, params) => {
    const orderId = str(params, 'orderId', 'futures');
    const order = ctx.engine.findOrder(undefined, { orderId });
    if (!order || order.surface !== 'futures' || !ctx.visible(order)) throw new WireError(400, '50005', 'Order does not exist');
    return fmt.futuresOrderRecord(ctx.engine, specOf(ctx.engine, order.symbol, 'futures'), order);
  },

  F19: (ctx, params) => {
    // Final orders, newest first, in a creation-time window (which orders the venue lists here is inference).
    const symbol = optStr(params, 'symbol');
    const specs = symbol ? [specOf(ctx.engine, symbol, 'futures')] : ctx.engine.specs('futures');
    const { pageSize } = paging(params, 'page', 'pageSize', 100, ENDPOINTS.F19.maxPageSize!);
    const fromMs = timeParam(params, 'createDate', -Infinity);
    const toMs = timeParam(params, 'endCreateDate', Infinity);
    return specs
      .flatMap((spec) =>
        ctx.engine
          .history(spec.symbol)
          .filter(
            (order) =>
              (order.status === 'filled' || order.status === 'canceled') && ctx.visible(order) && order.createdAtMs >= fromMs && order.createdAtMs <= toMs,
          ),
      )
      .sort((a, b) => b.createdAtMs - a.createdAtMs)
      .slice(0, pageSize)
      .map((order) => fmt.futuresOrderRecord(ctx.engine, specOf(ctx.engine, order.symbol, 'futures'), order));
  },

  F20: (ctx, params) => {
    const symbol = optStr(params, 'symbol');
    const specs = symbol ? [specOf(ctx.engine, symbol, 'futures')] : ctx.engine.specs('futures');
    const { pageSize: limit } = paging(params, 'page', 'limit', 100, ENDPOINTS.F20.maxPageSize!);
    const orderId = optStr(params, 'orderId');
    const startMs = timeParam(params, 'startTime', -Infinity);
    const endMs = timeParam(params, 'endTime', Infinity);
    const all = specs
      .flatMap((spec) =>
        ctx.engine.fills(spec.symbol, orderId).filter((fill) => ctx.fillVisible(fill) && fill.timestampMs >= startMs && fill.timestampMs <= endMs),
      )
      .sort((a, b) => b.timestampMs - a.timestampMs);
    return {
      list: all.slice(0, limit).map((fill) => fmt.futuresFillRecord(fill, ctx.engine.fillDetail(fill.symbol, fill.fillId))),
      nextFlag: all.length > limit,
      totals: all.length,
    };
  },

  F6: (ctx, params) => {
    const symbol = str(params, 'symbol', 'futures');
    specOf(ctx.engine, symbol, 'futures');
    const list = batch(params, 'orderDataList', ENDPOINTS.F6.maxBatch!, 'futures');
    return {
      order_info: list.map((item) => {
        const parsed = futuresItem(item);
        const r = 'req' in parsed ? ctx.engine.place('futures', symbol, [parsed.req])[0]! : { ok: false as const, refusal: parsed.refusal };
        return r.ok
          ? { order_id: r.orderId, client_oid: r.clientOid, result: true, error_code: '', error_message: '' }
          : {
              order_id: '',
              client_oid: 'req' in parsed ? parsed.req.clientOid : parsed.clientOid,
              result: false,
              error_code: r.refusal.code,
              error_message: r.refusal.message,
            };
      }),
      result: true,
    };
  },

  F7: (ctx, params) => {
    const symbol = str(params, 'symbol', 'futures');
    specOf(ctx.engine, symbol, 'futures');
    const ids = optList(params, 'ids');
    const cids = optList(params, 'cids');
    if (!ids && !cids) throw new WireError(400, '40019', 'Parameter cannot be empty: ids or cids');
    if ((ids ?? cids)!.length > ENDPOINTS.F7.maxBatch!) throw new WireError(400, '40017', 'Parameter validation failed: too many ids');
    const results = ctx.engine.cancel('futures', symbol, ids ? { orderIds: ids } : { clientOids: cids! });
    const rows = results.map((r) => ({
      err_code: r.ok ? '' : r.refusal.code,
      err_msg: r.ok ? '' : r.refusal.message,
      order_id: r.orderId ?? '',
      client_oid: r.clientOid ?? '',
      result: r.ok,
    }));
    return {
      result: results.every((r) => r.ok),
      symbol,
      orderIds: results.flatMap((r) => (r.ok ? [r.orderId] : [])),
      clientOids: results.flatMap((r) => (r.ok ? [r.clientOid] : [])),
      cancelOrderResultList: rows,
      failInfos: rows.filter((r) => !r.result),
    };
  },

  F8: (ctx, params) => {
    const symbol = str(params, 'symbol', 'futures');
    specOf(ctx.engine, symbol, 'futures');
    const clientOid = str(params, 'client_oid', 'futures');
    if (!CLIENT_OID_RE.test(clientOid)) throw new WireError(400, '40020', 'Parameter client_oid is invalid');
    const t = typeCode(str(params, 'type', 'futures'));
    const matchType = str(params, 'match_type', 'futures');
    if (matchType !== '0' && matchType !== '1') throw new WireError(400, '40020', 'Parameter match_type is invalid');
    const r = ctx.engine.placeTrigger({
      symbol,
      clientOid,
      positionSide: t.positionSide,
      reduceOnly: t.reduceOnly,
      size: dec(params, 'size', 'futures'),
      triggerPrice: dec(params, 'trigger_price', 'futures'),
      ...(matchType === '0' ? { executePrice: dec(params, 'execute_price', 'futures') } : {}),
    });
    if (!r.ok) throw new WireError(400, r.refusal.code, r.refusal.message);
    return { client_oid: null, order_id: r.orderId };
  },

  F9: (ctx, params) => {
    const symbol = str(params, 'symbol', 'futures');
    const orderId = str(params, 'orderId', 'futures');
    const r = ctx.engine.cancelTrigger(symbol, orderId);
    return r.ok
      ? { order_id: orderId, client_oid: r.clientOid, symbol, result: true, err_code: null, err_msg: null }
      : { order_id: orderId, client_oid: null, symbol, result: false, err_code: r.refusal.code, err_msg: r.refusal.message };
  },

  ...FUTURES_ACTION_ROUTES,
};
