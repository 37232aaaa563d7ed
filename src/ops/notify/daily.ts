// The daily summary: equity per surface and its change over the last 24 h, PnL, fees and fills per strategy, the
// trading state, as one message; and its schedule at a UTC time of day, through the clock.
import { Decimal } from '../../domain/decimal.js';
import type { Clock, ClockTimer } from '../../util/clock.js';
import type { Control } from '../control.js';

const DAY_MS = 86_400_000;

/** The next time (ms since the epoch) after `nowMs` that the UTC clock reads `at` (HH:MM). */
export function nextDailyAtMs(nowMs: number, at: string): number {
  const m = /^(\d{2}):(\d{2})$/.exec(at);
  if (!m) throw new RangeError(`expected HH:MM, got ${JSON.stringify(at)}`);
  const dayStart = Math.floor(nowMs / DAY_MS) * DAY_MS;
  const today = dayStart + (Number(m[1]) * 60 + Number(m[2])) * 60_000;
  return today > nowMs ? today : today + DAY_MS;
}

/** A signed decimal change, "+1.5" / "-0.2" / "0". */
function signed(d: Decimal): string {
  return d.isNegative() || d.isZero() ? d.toString() : `+${d.toString()}`;
}

/** The summary text of the 24 h before `nowMs`, from the control's reads. */
export function dailySummary(control: Control, nowMs: number): string {
  const sinceMs = nowMs - DAY_MS;
  const lines = [`Daily summary ${new Date(nowMs).toISOString().slice(0, 16).replace('T', ' ')} UTC (the last 24 h)`];
  try {
    const status = control.status();
    lines.push(`Trading: ${status.tradingState}${status.latches.length ? ` (${status.latches.map((l) => `${l.name}: ${l.reason}`).join('; ')})` : ''}`);

    // Equity: the latest value of each surface and its change since the first value of the day.
    const bySurface = new Map<string, { first: string; last: string }>();
    for (const p of control.equity({ sinceMs })) {
      const seen = bySurface.get(p.surface);
      if (seen) seen.last = p.value;
      else bySurface.set(p.surface, { first: p.value, last: p.value });
    }
    if (bySurface.size === 0) lines.push('Equity: no samples');
    for (const [surface, { first, last }] of bySurface) {
      const a = Decimal.parse(first);
      const b = Decimal.parse(last);
      lines.push(`Equity ${surface}: ${last}${a && b ? ` (${signed(b.sub(a))})` : ''}`);
    }

    const fills = control.fills({ limit: 10_000 }).filter((f) => f.atMs >= sinceMs);
    const fillsBy = new Map<string, number>();
    for (const f of fills) fillsBy.set(f.strategyId ?? 'other', (fillsBy.get(f.strategyId ?? 'other') ?? 0) + 1);
    lines.push(`Fills: ${fills.length}${fillsBy.size ? ` (${[...fillsBy].map(([id, n]) => `${id} ${n}`).join(', ')})` : ''}`);

    const strategies = control.strategies();
    if (strategies.length) lines.push('Strategies (realised PnL, fees, fills in all):');
    for (const s of strategies) {
      lines.push(
        `  ${s.id} ${s.state}: PnL ${s.pnl.realized}, fees ${s.pnl.fees}, ${s.pnl.fills} fills, ${s.openOrders} open orders${s.errors ? `, ${s.errors} errors` : ''}`,
      );
    }
  } catch (err) {
    lines.push(`(incomplete: ${err instanceof Error ? err.message : String(err)})`);
  }
  return lines.join('\n');
}

/** Calls `fire` every day at `at` (HH:MM, UTC), through the clock. */
export class DailySchedule {
  private timer: ClockTimer | undefined;
  private stopped = false;

  constructor(
    private readonly at: string,
    private readonly clock: Clock,
    private readonly fire: () => void,
  ) {}

  /** When it fires next (ms since the epoch), undefined once stopped. */
  nextAtMs: number | undefined;

  start(): void {
    if (this.stopped) return;
    const now = this.clock.now();
    // After a run, strictly after the time it ran for (a timer a little early does not run it twice).
    this.nextAtMs = nextDailyAtMs(Math.max(now, this.nextAtMs ?? now), this.at);
    this.timer = this.clock.setTimer(
      () => {
        if (this.stopped) return;
        try {
          this.fire();
        } finally {
          this.start();
        }
      },
      Math.max(0, this.nextAtMs - now),
    );
  }

  stop(): void {
    this.stopped = true;
    this.nextAtMs = undefined;
    this.timer?.cancel();
  }
}
