// An in-memory Control for the notifier tests: events are emitted by hand, reads answer from fields the test sets,
// and commands are recorded with their actor (pause, resume and forceExit change the strategy's state).
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

export interface RecordedCommand {
  command: string;
  args: unknown[];
  actor: Actor;
}

export function strategyView(id: string, over: Partial<StrategyView> = {}): StrategyView {
  return {
    id,
    name: 'market-maker',
    symbols: ['BTCUSDT_SPBL'],
    params: {},
    state: 'running',
    errors: 0,
    lastError: null,
    pnl: { realized: '12.5', fees: '0.75', fills: 4 },
    openOrders: 2,
    positions: [],
    ...over,
  };
}

export class FakeControl implements Control {
  readonly listeners = new Set<(e: ControlEvent) => void>();
  readonly commands: RecordedCommand[] = [];
  nowMs = 1_700_000_000_000;
  strategyList: StrategyView[] = [strategyView('mm'), strategyView('grid', { name: 'grid' })];
  fillList: FillView[] = [];
  equityList: Array<{ surface: string; value: string; atMs: number }> = [];
  orderList: OrderView[] = [];
  tradingState: ControlStatus['tradingState'] = 'active';
  profitList: ProfitWindow[] = [];
  performanceList: SymbolPerformance[] = [];

  /** Calls every listener, as the daemon does: one that throws is dropped. */
  emit(e: ControlEvent): void {
    for (const l of [...this.listeners]) {
      try {
        l(e);
      } catch {
        this.listeners.delete(l);
      }
    }
  }

  status(): ControlStatus {
    return {
      version: '0.0.0-test',
      mode: 'live',
      venue: 'embedded simulator',
      startedAtMs: this.nowMs - 60_000,
      nowMs: this.nowMs,
      tradingState: this.tradingState,
      latches: this.tradingState === 'halted' ? [{ name: 'operator', reason: 'halted by hand', atMs: this.nowMs }] : [],
      fenced: null,
      reconciliation: { lastAtMs: this.nowMs - 5000, unresolved: 0 },
      budget: [],
      polls: [],
      lease: null,
    };
  }
  strategies(): StrategyView[] {
    return this.strategyList;
  }
  orders(query: { scope: 'open' | 'recent'; strategyId?: string; limit?: number }): OrderView[] {
    return this.orderList.filter((o) => !query.strategyId || o.strategyId === query.strategyId);
  }
  order(): undefined {
    return undefined;
  }
  fills(query: { strategyId?: string; limit?: number }): FillView[] {
    return this.fillList.filter((f) => !query.strategyId || f.strategyId === query.strategyId).slice(0, query.limit ?? 100);
  }
  balances(): Array<{ surface: string; asset: string; total: string; available: string | null }> {
    return [
      { surface: 'spot', asset: 'USDT', total: '100000.5', available: '99000' },
      { surface: 'futures', asset: 'USDT', total: '5000', available: null },
    ];
  }
  positions(): ReturnType<Control['positions']> {
    return [
      { symbol: 'cmt_btcusdt', side: 'long', size: '0.01', entryPrice: '90000.0', markPrice: '90100.0', unrealizedPnl: '1', liquidationPrice: '70000.0' },
    ];
  }
  equity(query: { sinceMs?: number }): Array<{ surface: string; value: string; atMs: number }> {
    return this.equityList.filter((p) => p.atMs >= (query.sinceMs ?? 0));
  }
  profit(): ProfitWindow[] {
    return this.profitList;
  }
  performance(): SymbolPerformance[] {
    return this.performanceList;
  }
  recentEvents(): ControlEvent[] {
    return [];
  }
  onEvent(listener: (e: ControlEvent) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  private record(command: string, args: unknown[], actor: Actor): void {
    this.commands.push({ command, args, actor });
  }
  private strategy(id: string): StrategyView | undefined {
    return this.strategyList.find((s) => s.id === id);
  }

  async pause(id: string, opts: { cancelOrders: boolean; reason?: string }, actor: Actor): Promise<CommandResult> {
    this.record('pause', [id, opts], actor);
    const s = this.strategy(id);
    if (!s) return { ok: false, status: 404, error: `no strategy ${id}` };
    s.state = 'paused';
    return { ok: true, detail: `${id} paused` };
  }
  async resume(id: string, actor: Actor, reason?: string): Promise<CommandResult> {
    this.record('resume', reason === undefined ? [id] : [id, reason], actor);
    const s = this.strategy(id);
    if (!s) return { ok: false, status: 404, error: `no strategy ${id}` };
    s.state = 'running';
    return { ok: true, detail: `${id} resumed` };
  }
  async reload(actor: Actor): Promise<CommandResult> {
    this.record('reload', [], actor);
    return { ok: true, detail: 'reloaded' };
  }
  async cancelOrders(id: string, actor: Actor): Promise<CommandResult> {
    this.record('cancelOrders', [id], actor);
    return { ok: true, detail: 'canceled' };
  }
  async halt(reason: string, actor: Actor): Promise<CommandResult> {
    this.record('halt', [reason], actor);
    this.tradingState = 'halted';
    return { ok: true, detail: `halted: ${reason}` };
  }
  async reduce(reason: string, actor: Actor): Promise<CommandResult> {
    this.record('reduce', [reason], actor);
    return { ok: true, detail: 'reducing' };
  }
  async reset(reason: string, actor: Actor): Promise<CommandResult> {
    this.record('reset', [reason], actor);
    this.tradingState = 'active';
    return { ok: true, detail: 'reset' };
  }
  async flatten(reason: string, actor: Actor): Promise<CommandResult> {
    this.record('flatten', [reason], actor);
    return { ok: true, detail: 'flattened' };
  }
  async clearAuthHalt(actor: Actor, reason?: string): Promise<CommandResult> {
    this.record('clearAuthHalt', reason === undefined ? [] : [reason], actor);
    return { ok: true, detail: 'authentication halt cleared' };
  }
  async forceExit(id: string, symbol: string, actor: Actor, reason?: string): Promise<CommandResult> {
    this.record('forceExit', reason === undefined ? [id, symbol] : [id, symbol, reason], actor);
    const s = this.strategy(id);
    if (!s) return { ok: false, status: 404, error: `no strategy ${id}` };
    s.state = 'paused';
    return { ok: true, detail: `${id} paused; ${symbol} closed` };
  }
}

/** Control events as the daemon describes them. */
export const events = {
  fill: (atMs: number, strategyId = 'mm', n = 1): ControlEvent => ({
    kind: 'fill',
    atMs,
    text: `${strategyId} bought 0.001 BTCUSDT_SPBL at 90000.${n}`,
    data: { strategyId, clientOid: `sx_${strategyId}_${n}`, orderId: `60287631826196933${n}`, price: `90000.${n}`, size: '0.001', fee: '0.09' },
  }),
  rejected: (atMs: number, strategyId = 'mm', n = 1): ControlEvent => ({
    kind: 'order',
    atMs,
    text: `${strategyId} order sx_${strategyId}_${n} rejected: insufficient balance`,
    data: { type: 'rejected', strategyId, clientOid: `sx_${strategyId}_${n}`, code: '40754', reason: 'insufficient balance' },
  }),
  accepted: (atMs: number): ControlEvent => ({ kind: 'order', atMs, text: 'mm order accepted', data: { type: 'accepted', strategyId: 'mm' } }),
  halted: (atMs: number): ControlEvent => ({ kind: 'state', atMs, text: 'drawdown 12% above 10%', data: { state: 'halted', reason: 'drawdown' } }),
  active: (atMs: number): ControlEvent => ({ kind: 'state', atMs, text: 'reset by operator', data: { state: 'active', reason: 'reset' } }),
  faulted: (atMs: number): ControlEvent => ({
    kind: 'strategy',
    atMs,
    text: 'grid faulted: TypeError x is undefined',
    data: { id: 'grid', change: 'faulted', reason: 'TypeError x is undefined', atMs },
  }),
  vanished: (atMs: number): ControlEvent => ({ kind: 'order', atMs, text: 'sx_mm_9 vanished', data: { type: 'vanished', strategyId: 'mm' } }),
  unknown: (atMs: number): ControlEvent => ({ kind: 'order', atMs, text: 'sx_mm_7 outcome unknown: timeout', data: { type: 'unknown', strategyId: 'mm' } }),
  equity: (atMs: number): ControlEvent => ({ kind: 'equity', atMs, text: 'equity 100000', data: { surface: 'spot', value: '100000' } }),
};
