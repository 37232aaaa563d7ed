// The in-process simulator's faults, for simulations of the whole daemon in virtual time: the network between the
// daemon and the venue (a seeded time each way, so answers overtake one another), the venue's standing troubles
// (down, a 429 storm, a clock skew beyond its window, orders hidden from reads after they are placed) and one-off
// faults taken by the next write (the venue acted and the answer was lost to a 500 or a timeout; a batch answer
// that leaves an item out). The venue can also restart and forget every order resting on it. What the HTTP face
// does with a real socket (http/faults.ts), done here on the ExchangeClient port, with the same error categories.
import type { Order } from '../../domain/order.js';
import type { Surface } from '../../domain/market.js';
import type { Prng } from '../../util/prng.js';
import { wholeRequestResults, type CancelTarget, type ExchangeClient, type ItemResult, type OrderRequest } from '../client.js';
import { ENDPOINTS, type EndpointId } from '../endpoints.js';
import { ExchangeError } from '../errors.js';
import type { SimulatedExchange } from './simulated-exchange.js';

/** A one-off fault, taken by the next write it matches. */
export type OneOffFault = 'accept-then-500' | 'timeout-after-act' | 'left-out';

/** The venue's standing faults, moved by a schedule; times on the venue's (virtual) clock. */
export interface VenueFaults {
  /** Requests fail to connect until then (nothing reaches the venue). */
  downUntilMs: number;
  /** Every request is answered 429 until then. */
  stormUntilMs: number;
  /** Signed requests are refused for their timestamp until then (a clock skew beyond the venue's window). */
  skewUntilMs: number;
  /** An order placed is hidden from reads (lists, lookups) for this long. */
  readLagMs: number;
  /** Each way's network time: a base and a seeded jitter on top (answers overtake one another). */
  latencyMs: number;
  jitterMs: number;
  /** How long a timed-out request is waited for before the client gives up. */
  timeoutMs: number;
  oneOff: OneOffFault[];
}

export function calmVenue(): VenueFaults {
  return { downUntilMs: 0, stormUntilMs: 0, skewUntilMs: 0, readLagMs: 0, latencyMs: 20, jitterMs: 0, timeoutMs: 10_000, oneOff: [] };
}

/** A write as it reached the venue, told to the observer before the venue acts. */
export interface VenueWrite {
  method: string;
  endpoint: EndpointId;
  args: unknown[];
  atMs: number;
}

export interface FaultClientOptions {
  sim: SimulatedExchange;
  faults: VenueFaults;
  /** Where the network time is waited out (the simulation's virtual clock). */
  time: { now(): number; at(atMs: number, fn: () => void): void };
  rng: Prng;
  /** False once the process this client belongs to has died: it sends nothing more, and no answer reaches it. */
  alive: () => boolean;
  /** Hands an answer to the process (which may be frozen: then when it thaws); absent, at once. */
  deliver?: (fn: () => void) => void;
  /** Writes are refused before sending while this says no (the account lease, as the live client checks it). */
  writesAllowed?: () => boolean;
  /** Told of every write the daemon hands the client, and of every write that reaches the venue. */
  onCall?: (w: VenueWrite) => void;
  onArrive?: (w: VenueWrite) => void;
  /** Told of every placement the venue accepted (client id, order id). */
  onAccepted?: (clientOid: string, orderId: string) => void;
}

const NEVER = new Promise<never>(() => undefined);

/** The endpoint each client method calls (by the surface when it has one). */
function endpointOf(method: string, args: unknown[]): EndpointId {
  const spot = args[0] === 'spot';
  switch (method) {
    case 'placeOrders':
      return spot ? 'S6' : 'F6';
    case 'cancelOrders':
      return spot ? 'S4' : 'F7';
    case 'cancelAll':
      return spot ? 'S5' : 'F28';
    case 'openOrders':
      return spot ? 'S15' : 'F5';
    case 'order':
      return spot ? 'S3' : 'F18';
    case 'fills':
      return spot ? 'S2' : 'F20';
    case 'balances':
      return spot ? 'S8' : 'F3';
    case 'instruments':
      return spot ? 'S7' : 'F1';
    default: {
      const id = METHOD_ENDPOINTS[method];
      if (!id) throw new Error(`the fault client knows no endpoint for ${method}`);
      return id;
    }
  }
}

const METHOD_ENDPOINTS: Record<string, EndpointId> = {
  tickers: 'F2',
  recentTrades: 'S9',
  ticker: 'F12',
  depth: 'F13',
  candles: 'F10',
  historyCandles: 'F11',
  fundingRates: 'F14',
  nextFundingTime: 'F15',
  fundingHistory: 'F16',
  priceIndex: 'F17',
  triggerOrders: 'F21',
  triggerOrderHistory: 'F22',
  positions: 'F4',
  allPositions: 'F29',
  ledger: 'F30',
  placeTrigger: 'F8',
  cancelTrigger: 'F9',
  placeTpSl: 'F23',
  modifyTpSl: 'F24',
  placeOrder: 'F25',
  cancelOrder: 'F26',
  closePositions: 'F27',
  cancelAllFutures: 'F28',
};

type Item = { clientOid: string | null; orderId: string | null };

/** The writes that place orders: their accepted items are orders placed. */
const PLACES: ReadonlySet<string> = new Set(['placeOrders', 'placeOrder', 'placeTrigger', 'placeTpSl']);

/**
 * The items a write carries, by method, for the writes that answer with item results: the live client turns a
 * failure of the whole request into each item's result (unknown when the venue may have acted), and so does this one.
 * `one`: the method answers one result, not a list.
 */
const ITEM_WRITES: Record<string, { items: (args: unknown[]) => Item[]; one?: true }> = {
  placeOrders: { items: (a) => (a[2] as OrderRequest[]).map((o) => ({ clientOid: o.clientOid, orderId: null })) },
  cancelOrders: {
    items: (a) => {
      const t = a[2] as CancelTarget;
      return t.orderIds ? t.orderIds.map((orderId) => ({ clientOid: null, orderId })) : (t.clientOids ?? []).map((clientOid) => ({ clientOid, orderId: null }));
    },
  },
  cancelAll: { items: () => [{ clientOid: null, orderId: null }] },
  cancelAllFutures: { items: () => [{ clientOid: null, orderId: null }] },
  placeTrigger: { items: (a) => [{ clientOid: (a[0] as { clientOid: string }).clientOid, orderId: null }], one: true },
  placeTpSl: { items: (a) => [{ clientOid: (a[0] as { clientOid: string }).clientOid, orderId: null }], one: true },
  placeOrder: { items: (a) => [{ clientOid: (a[1] as OrderRequest).clientOid, orderId: null }], one: true },
  cancelTrigger: { items: (a) => [{ clientOid: null, orderId: a[1] as string }], one: true },
  modifyTpSl: { items: (a) => [{ clientOid: null, orderId: (a[0] as { orderId: string }).orderId }], one: true },
  cancelOrder: {
    items: (a) => {
      const t = a[0] as { orderId: string } | { clientOid: string };
      return ['orderId' in t ? { clientOid: null, orderId: t.orderId } : { clientOid: t.clientOid, orderId: null }];
    },
    one: true,
  },
};

/** A write's failure as its caller sees it: item results where the write answers with them, else the error. */
function failure(method: string, args: unknown[], err: unknown): Promise<unknown> {
  const w = ITEM_WRITES[method];
  if (!w || !(err instanceof ExchangeError)) return Promise.reject(err as Error);
  const results = wholeRequestResults(err, w.items(args));
  return Promise.resolve(w.one ? results[0] : results);
}

/** A batch answer with its last item left out, as the live client reads it: that item's outcome unknown. */
function leaveLastOut(endpoint: EndpointId, answer: ItemResult[]): ItemResult[] {
  const last = answer[answer.length - 1]!;
  const error = new ExchangeError('bad-response', `order ${last.clientOid} is missing from the answer: its outcome is unknown`, { endpoint });
  return [...answer.slice(0, -1), { outcome: 'unknown', clientOid: last.clientOid, orderId: null, error }];
}

/** The in-process venue behind faults; one per process of the daemon (a dead one's answers never come). */
export class FaultClient {
  readonly client: ExchangeClient;
  /** Orders placed, by order id: when (hidden from reads for the lag after it). */
  private readonly placedAt: Map<string, number>;
  /** Orders the venue forgot in a restart (shared by every process's client: see forgetResting). */
  private readonly forgotten: Set<string>;

  constructor(
    private readonly opts: FaultClientOptions,
    shared: { placedAt: Map<string, number>; forgotten: Set<string> } = { placedAt: new Map(), forgotten: new Set() },
  ) {
    ({ placedAt: this.placedAt, forgotten: this.forgotten } = shared);
    const self = this;
    this.client = new Proxy(opts.sim as unknown as ExchangeClient, {
      get(target, key) {
        const value = Reflect.get(target, key) as unknown;
        if (typeof value !== 'function' || typeof key !== 'string' || key === 'close') return value;
        return (...args: unknown[]) => self.request(key, args, (value as (...a: unknown[]) => Promise<unknown>).bind(target));
      },
    });
  }

  /** What the venue state is shared through: a new process's client sees the same hidden and forgotten orders. */
  get shared(): { placedAt: Map<string, number>; forgotten: Set<string> } {
    return { placedAt: this.placedAt, forgotten: this.forgotten };
  }

  private leg(): number {
    const { faults, rng } = this.opts;
    return faults.latencyMs + (faults.jitterMs > 0 ? rng.below(faults.jitterMs + 1) : 0);
  }

  /** Resolves with `settle` one way later, unless the process died meanwhile. */
  private back<T>(settle: () => T | Promise<T>): Promise<T> {
    const { time, alive } = this.opts;
    const deliver = this.opts.deliver ?? ((fn: () => void) => fn());
    return new Promise<T>((resolve) => time.at(time.now() + this.leg(), () => alive() && deliver(() => resolve(settle()))));
  }

  private request(method: string, args: unknown[], call: (...a: unknown[]) => Promise<unknown>): Promise<unknown> {
    const { faults, time, alive } = this.opts;
    if (!alive()) return NEVER;
    const endpoint = endpointOf(method, args);
    const ep = ENDPOINTS[endpoint];
    const write = ep.kind !== 'read';
    const w: VenueWrite = { method, endpoint, args, atMs: time.now() };
    if (write) {
      if (this.opts.writesAllowed && !this.opts.writesAllowed())
        return failure(method, args, new ExchangeError('permission', 'not sent: this daemon no longer holds the account lease', { endpoint, sent: false }));
      this.opts.onCall?.(w);
    }
    // The request reaches the venue whatever becomes of the process that sent it.
    const answer = new Promise((resolve, reject) => {
      time.at(time.now() + this.leg(), () => {
        const now = time.now();
        const refuse = (err: ExchangeError) => void this.back(() => Promise.reject(err)).catch(reject);
        if (now < faults.downUntilMs) return refuse(new ExchangeError('network', 'connect ECONNREFUSED', { endpoint, sent: false }));
        if (now < faults.stormUntilMs) return refuse(new ExchangeError('rate-limit', 'too many requests', { endpoint, httpStatus: 429 }));
        if (ep.auth && now < faults.skewUntilMs)
          return refuse(new ExchangeError('timestamp', 'request timestamp outside the receive window', { endpoint, httpStatus: 400, code: '40008' }));
        if (write) this.opts.onArrive?.({ ...w, atMs: now });
        const oneOff = write ? this.takeOneOff(method) : undefined;
        call(...args).then(
          (answer) => {
            if (PLACES.has(method)) this.noteAccepted(answer, now);
            if (oneOff === 'accept-then-500') return refuse(new ExchangeError('unavailable', 'HTTP 500 after the venue acted', { endpoint, httpStatus: 500 }));
            if (oneOff === 'timeout-after-act') {
              const timedOut = new ExchangeError('timeout', `no answer within ${faults.timeoutMs} ms`, { endpoint });
              time.at(now + faults.timeoutMs, () => alive() && (this.opts.deliver ?? ((fn: () => void) => fn()))(() => reject(timedOut)));
              return;
            }
            const shown =
              oneOff === 'left-out' && Array.isArray(answer) && answer.length > 0
                ? leaveLastOut(endpoint, answer as ItemResult[])
                : this.hide(method, answer, now);
            void this.back(() => shown).then(resolve, reject);
          },
          (err: unknown) => void this.back(() => Promise.reject(err as Error)).catch(reject),
        );
      });
    });
    return write ? answer.catch((err: unknown) => failure(method, args, err)) : answer;
  }

  private takeOneOff(method: string): OneOffFault | undefined {
    const list = this.opts.faults.oneOff;
    const i = list.findIndex((f) => f !== 'left-out' || method === 'placeOrders');
    if (i < 0) return undefined;
    return list.splice(i, 1)[0];
  }

  private noteAccepted(answer: unknown, atMs: number): void {
    const items = (Array.isArray(answer) ? answer : [answer]) as Array<Partial<ItemResult> | undefined>;
    for (const r of items) {
      if (r?.outcome !== 'accepted' || !r.orderId) continue;
      if (!this.placedAt.has(r.orderId)) {
        this.placedAt.set(r.orderId, atMs);
        if (r.clientOid) this.opts.onAccepted?.(r.clientOid, r.orderId);
      }
    }
  }

  private hidden(o: Pick<Order, 'orderId'>, now: number): boolean {
    if (this.forgotten.has(o.orderId)) return true;
    const at = this.placedAt.get(o.orderId);
    return at !== undefined && now - at < this.opts.faults.readLagMs;
  }

  /** A read's answer as the venue shows it: orders hidden by the read lag or forgotten left out. */
  private hide(method: string, answer: unknown, now: number): unknown {
    if (method === 'openOrders' || method === 'triggerOrders') return (answer as Order[]).filter((o) => !this.hidden(o, now));
    if (method === 'order') return answer && this.hidden(answer as Order, now) ? null : answer;
    return answer;
  }

  /** The venue restarts and forgets every order resting on it: canceled in its engine, never shown again. */
  forgetResting(): number {
    const { engine } = this.opts.sim;
    let n = 0;
    for (const surface of ['spot', 'futures'] as Surface[]) {
      for (const o of engine.openOrders(surface)) {
        this.forgotten.add(o.orderId);
        if (o.isTrigger) engine.cancelTrigger(o.symbol, o.orderId);
        else engine.cancel(surface, o.symbol, { orderIds: [o.orderId] });
        n++;
      }
    }
    return n;
  }
}
