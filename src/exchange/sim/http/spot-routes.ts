// The simulator's spot endpoints (/api/v2): each handler reads its parameters as the venue does and answers the
// payload the venue puts in the envelope's `data`.
import type { ResponseOf } from '../../wire/responses.js';
import { ENDPOINTS } from '../../endpoints.js';
import type { CancelOutcome } from '../engine.js';
import { SPOT_CANDLE_ROWS } from '../symbol-candles.js';
import * as fmt from '../wire-format.js';
import { WireError, batch, choiceParam, countParam, optList, paging, periodParam, spotItem, str } from './request.js';
import { pageOf, specOf, type RouteTable, type SpotEndpointId } from './route-context.js';
import { shown } from '../../../util/shown.js';

/** S4 / S5: the ids canceled, and why the others were not. */
function spotCancelData(results: CancelOutcome[]): ResponseOf<'S4'> {
  return {
    successList: results.flatMap((r) => (r.ok ? [r.orderId] : [])),
    failureList: results.flatMap((r) => (r.ok ? [] : [{ orderId: r.orderId ?? '', clientOid: r.clientOid ?? '', errMsg: r.refusal.code }])),
  };
}

export const SPOT_ROUTES: RouteTable<SpotEndpointId> = {
  S0: (ctx) => ctx.nowMs,

  S7: (ctx, params) => {
    const wanted = new Set(
      shown(params.symbols ?? params.symbol ?? '')
        .split(',')
        .filter(Boolean),
    );
    return ctx.engine
      .specs('spot')
      .filter((s) => wanted.size === 0 || wanted.has(s.symbol))
      .map(fmt.spotSymbolInfo);
  },

  S8: (ctx) =>
    ctx.engine
      .spotBalances()
      .map((b, i) => ({ coinId: i + 1, coinName: b.asset, available: b.available!.toString(), frozen: b.frozen!.toString(), equity: b.total.toString() })),

  S9: (ctx, params) => {
    const symbol = str(params, 'symbol', 'spot');
    specOf(ctx.engine, symbol, 'spot');
    const limit = Math.min(1000, Math.max(1, Number(params.limit ?? 100)));
    return ctx.engine.trades(symbol, limit).map((t) => ({
      symbol,
      tradeId: t.tradeId,
      fillTime: t.ts,
      fillPrice: t.price.toString(),
      fillQuantity: t.size.toString(),
      tradeValue: t.price.mul(t.size).toString(),
      bestMatch: true,
      buyerMaker: t.buyerMaker,
    }));
  },

  S10: (ctx, params) => {
    const symbol = str(params, 'symbol', 'spot');
    specOf(ctx.engine, symbol, 'spot');
    const period = periodParam(params, 'period', 'S10', 'spot');
    const limit = countParam(params, 'limit', 'spot', SPOT_CANDLE_ROWS, (n) => n >= 1);
    const book = ctx.engine.book(symbol)!;
    return book.candles.latest(period, Math.min(limit, SPOT_CANDLE_ROWS)).map((bar) => fmt.candleRow(book, bar));
  },

  S11: (ctx, params) => {
    const symbol = str(params, 'symbol', 'spot');
    specOf(ctx.engine, symbol, 'spot');
    return fmt.spotTickerRecord(ctx.engine.book(symbol)!, ctx.nowMs);
  },

  S13: (ctx, params) => {
    const symbol = str(params, 'symbol', 'spot');
    specOf(ctx.engine, symbol, 'spot');
    // Merged depth (step1…step5) is accepted and served unmerged, as step0.
    choiceParam(params, 'type', 'spot', ['step0', 'step1', 'step2', 'step3', 'step4', 'step5'], 'step0');
    // The venue's default when limit is omitted is undocumented: 15, as futures.
    const limit = countParam(params, 'limit', 'spot', 15, (n) => ENDPOINTS.S13.limitChoices!.includes(n));
    return fmt.depthRecord(ctx.engine.book(symbol)!, limit, ctx.nowMs);
  },

  S1: (ctx, params) => {
    const symbol = str(params, 'symbol', 'spot');
    specOf(ctx.engine, symbol, 'spot');
    const { pageIndex, pageSize } = paging(params, 'pageIndex', 'pageSize', 10, 100);
    const after = params.after === undefined ? -Infinity : Number(params.after);
    const before = params.before === undefined ? Infinity : Number(params.before);
    const all = ctx.engine.history(symbol).filter((order) => ctx.visible(order) && order.createdAtMs >= after && order.createdAtMs <= before);
    const page = pageOf(all, pageIndex, pageSize);
    return {
      orderInfoResultList: page.map((order) => fmt.spotOrderRecord(ctx.engine, order)),
      nextPage: (pageIndex + 1) * pageSize < all.length,
      totals: all.length,
    };
  },

  S2: (ctx, params) => {
    const symbol = str(params, 'symbol', 'spot');
    const spec = specOf(ctx.engine, symbol, 'spot');
    const { pageIndex, pageSize } = paging(params, 'pageIndex', 'pageSize', 10, 100);
    const orderId = params.orderId === undefined ? undefined : shown(params.orderId);
    const all = ctx.engine.fills(symbol, orderId);
    const page = pageOf(all, pageIndex, pageSize);
    return { fillsOrderResultList: page.map((fill) => fmt.spotFillRecord(spec, fill)), nextPage: (pageIndex + 1) * pageSize < all.length, totals: all.length };
  },

  S15: (ctx, params) => {
    const symbol = str(params, 'symbol', 'spot');
    specOf(ctx.engine, symbol, 'spot');
    const { pageIndex, pageSize } = paging(params, 'pageNo', 'limit', 100, ENDPOINTS.S15.maxPageSize!);
    const all = ctx.engine.openOrders('spot', symbol).filter((order) => ctx.visible(order));
    const page = pageOf(all, pageIndex, pageSize);
    // The venue sends nextPage and totals as null: a short page is the end.
    return { orderInfoResultList: page.map((order) => fmt.spotOrderRecord(ctx.engine, order)), nextPage: null, totals: null };
  },

  S3: (ctx, params) => {
    if (params.orderId === undefined && params.clientOrderId === undefined) throw new WireError(400, '40913', 'Either orderId or clientId is required');
    const order = ctx.engine.findOrder(
      undefined,
      params.orderId !== undefined ? { orderId: shown(params.orderId) } : { clientOid: String(params.clientOrderId) },
    );
    return order && order.surface === 'spot' && ctx.visible(order) ? [fmt.spotOrderRecord(ctx.engine, order)] : [];
  },

  S6: (ctx, params) => {
    const symbol = str(params, 'symbol', 'spot');
    specOf(ctx.engine, symbol, 'spot');
    const list = batch(params, 'orderList', ENDPOINTS.S6.maxBatch!, 'spot');
    const reqs = list.map((item) => spotItem(item));
    const results = ctx.engine.place('spot', symbol, reqs);
    const accepted = results.flatMap((r) => (r.ok ? [{ orderId: fmt.rawLong(r.orderId), clientOrderId: r.clientOid }] : []));
    // A refused item is left out of resultList; when nothing was accepted, the first refusal is the answer.
    if (accepted.length === 0) {
      const first = results.find((r) => !r.ok);
      if (first && !first.ok) throw new WireError(400, first.refusal.code, first.refusal.message);
    }
    return { resultList: accepted };
  },

  S4: (ctx, params) => {
    const symbol = str(params, 'symbol', 'spot');
    specOf(ctx.engine, symbol, 'spot');
    const orderIds = optList(params, 'orderIds');
    const clientOids = optList(params, 'clientOids');
    if (!orderIds && !clientOids) throw new WireError(400, '40913', 'Either orderId or clientId is required');
    const n = (orderIds ?? clientOids)!.length;
    if (n > ENDPOINTS.S4.maxBatch!) throw new WireError(400, '40912', 'Batch cancel limit exceeded (max 50 orders)');
    return spotCancelData(ctx.engine.cancel('spot', symbol, orderIds ? { orderIds } : { clientOids: clientOids! }));
  },

  S5: (ctx, params) => {
    const symbol = str(params, 'symbol', 'spot');
    specOf(ctx.engine, symbol, 'spot');
    return spotCancelData(ctx.engine.cancelAll('spot', symbol));
  },
};
