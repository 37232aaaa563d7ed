// An in-memory Control for the API's tests: canned reads, commands recorded with their actor, events fired by hand.
import type {
  Actor,
  CommandResult,
  Control,
  ControlEvent,
  ControlStatus,
  FillView,
  OrderView,
  ProfitWindow,
  StrategyView,
  SymbolPerformance,
} from '../../../../src/ops/control.js';

export const STATUS: ControlStatus = {
  version: '0.0.0-test',
  mode: 'live',
  venue: 'embedded simulator 1',
  startedAtMs: 1_000,
  nowMs: 61_000,
  tradingState: 'active',
  latches: [],
  fenced: null,
  reconciliation: { lastAtMs: 60_000, unresolved: 0 },
  budget: [{ pool: 'spot:ip', available: 480, queued: 0 }],
  polls: [
    { poll: 'tickers', ageMs: 300 },
    { poll: 'ledger', ageMs: null },
  ],
  lease: { holder: 'host-a:41', fencingToken: 7, held: true },
};

export const ORDER: OrderView = {
  clientOid: 'sx_mm_1',
  orderId: '700000000000000000123',
  strategyId: 'mm',
  surface: 'spot',
  symbol: 'BTCUSDT_SPBL',
  side: 'buy',
  kind: 'limit',
  price: '90000.5',
  size: '0.002',
  filledSize: '0',
  avgPrice: null,
  state: 'open',
  role: null,
  createdAtMs: 2_000,
  updatedAtMs: 3_000,
};

export const FILL: FillView = {
  clientOid: 'sx_mm_1',
  orderId: '700000000000000000123',
  fillId: 'f1',
  strategyId: 'mm',
  symbol: 'BTCUSDT_SPBL',
  price: '90000.5',
  size: '0.001',
  fee: '0.09',
  atMs: 4_000,
};

export const STRATEGY: StrategyView = {
  id: 'mm',
  name: 'spot-market-maker',
  symbols: ['BTCUSDT_SPBL'],
  params: { size: '0.002' },
  state: 'running',
  errors: 0,
  lastError: null,
  pnl: { realized: '1.5', fees: '0.09', fills: 1 },
  openOrders: 1,
  positions: [],
};

/** The server's other sources, answering as a healthy daemon would. */
export const HEALTHY = { health: () => ({ ok: true, detail: {} }), ready: () => ({ ok: true, detail: {} }) };
export const METRICS = { contentType: 'text/plain', metrics: async () => 'sextant_up 1\n' };

export class FakeControl implements Control {
  readonly calls: Array<{ command: string; args: unknown[]; actor: Actor }> = [];
  readonly events: ControlEvent[] = [];
  private readonly listeners = new Set<(e: ControlEvent) => void>();
  refreshed = 0;

  emit(e: ControlEvent): void {
    this.events.push(e);
    for (const l of this.listeners) l(e);
  }

  get listening(): number {
    return this.listeners.size;
  }

  async refresh(): Promise<void> {
    this.refreshed++;
  }
  status(): ControlStatus {
    return STATUS;
  }
  strategies(): StrategyView[] {
    return [STRATEGY];
  }
  orders(query: { scope: 'open' | 'recent'; strategyId?: string; limit?: number }): OrderView[] {
    return query.scope === 'open' ? [ORDER] : [ORDER, { ...ORDER, clientOid: 'sx_mm_0', state: 'filled' }].slice(0, query.limit ?? 100);
  }
  order(clientOid: string) {
    return clientOid === ORDER.clientOid
      ? {
          order: ORDER,
          history: [
            { event: 'written', state: 'sending', atMs: 2_000 },
            { event: 'accepted', state: 'open', atMs: 3_000 },
          ],
        }
      : undefined;
  }
  fills(): FillView[] {
    return [FILL];
  }
  balances() {
    return [{ surface: 'spot', asset: 'USDT', total: '10000.00000001', available: null }];
  }
  positions() {
    return [{ symbol: 'cmt_btcusdt', side: 'long', size: '0.01', entryPrice: '90000', markPrice: '90100', unrealizedPnl: '1', liquidationPrice: null }];
  }
  equity(query: { sinceMs?: number }) {
    return [
      { surface: 'spot', value: '10000', atMs: 1_000 },
      { surface: 'spot', value: '10001.5', atMs: 5_000 },
    ].filter((p) => p.atMs >= (query.sinceMs ?? 0));
  }
  profit(): ProfitWindow[] {
    const figures = { realized: '1.50000000', fees: '0.09000000', fills: 1, roundTrips: 0 };
    return [
      { window: 'today', sinceMs: 0, strategies: [{ id: 'mm', ...figures }], total: figures },
      { window: '7d', sinceMs: 0, strategies: [{ id: 'mm', ...figures }], total: figures },
      { window: 'all', sinceMs: null, strategies: [{ id: 'mm', ...figures }], total: figures },
    ];
  }
  performance(): SymbolPerformance[] {
    return [{ symbol: 'BTCUSDT_SPBL', realized: '1.50000000', fees: '0.09000000', fills: 1, roundTrips: 0 }];
  }
  recentEvents(limit = 100): ControlEvent[] {
    return this.events.slice(-limit);
  }
  onEvent(listener: (e: ControlEvent) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  private record(command: string, actor: Actor, ...args: unknown[]): CommandResult {
    this.calls.push({ command, args, actor });
    return { ok: true, detail: `${command} done` };
  }
  private strategy(id: string, command: string, actor: Actor, ...args: unknown[]): CommandResult {
    return id === 'mm' ? this.record(command, actor, id, ...args) : { ok: false, status: 404, error: `no strategy ${id}` };
  }
  async pause(id: string, opts: { cancelOrders: boolean; reason?: string }, actor: Actor) {
    return this.strategy(id, 'pause', actor, opts);
  }
  async resume(id: string, actor: Actor, reason?: string) {
    return this.strategy(id, 'resume', actor, reason);
  }
  async reload(actor: Actor, reason?: string) {
    return this.record('reload', actor, reason);
  }
  async cancelOrders(id: string, actor: Actor, reason?: string) {
    return this.strategy(id, 'cancel-orders', actor, reason);
  }
  async halt(reason: string, actor: Actor) {
    return this.record('halt', actor, reason);
  }
  async reduce(reason: string, actor: Actor) {
    return this.record('reduce', actor, reason);
  }
  async reset(reason: string, actor: Actor) {
    return this.record('reset', actor, reason);
  }
  async clearAuthHalt(actor: Actor, reason?: string) {
    return this.record('clear-auth-halt', actor, reason);
  }
  async forceExit(id: string, symbol: string, actor: Actor, reason?: string): Promise<CommandResult> {
    if (id !== 'mm') return { ok: false, status: 404, error: `no strategy ${id}` };
    if (symbol !== 'BTCUSDT_SPBL') return { ok: false, status: 409, error: `nothing to close: mm holds nothing on ${symbol} by its fills` };
    return this.record('force-exit', actor, id, symbol, reason);
  }
  async flatten(reason: string, actor: Actor): Promise<CommandResult> {
    this.calls.push({ command: 'flatten', args: [reason], actor });
    return { ok: false, status: 409, error: 'a flatten pass is under way' };
  }
}
