// A run's fault schedule, drawn from its seed: what goes wrong and when, in virtual time from the run's start. The
// same seed draws the same schedule; a schedule given explicitly (a shrunk one) replays without the seed's draw.
import { KILL_POINTS, type KillPoint } from '../../execution/kill-points.js';
import { Prng, deriveSeed } from '../../util/prng.js';

export type Fault =
  /** The daemon dies at the n-th pass through a kill point after `atMs` (restarted on the same journal). */
  | { kind: 'crash'; atMs: number; point: KillPoint; nth: number; downMs: number }
  /** The daemon dies at `atMs`, wherever it is (SIGKILL). */
  | { kind: 'kill'; atMs: number; downMs: number }
  /** The venue restarts and forgets every order resting on it. */
  | { kind: 'venue-restart'; atMs: number }
  /** Orders placed are hidden from reads for `lagMs`, for `forMs`. */
  | { kind: 'read-lag'; atMs: number; lagMs: number; forMs: number }
  /** The next write is acted on and its answer lost (a 500, or a timeout), or a batch answer leaves an item out. */
  | { kind: 'accept-then-500' | 'timeout-after-act' | 'left-out'; atMs: number }
  /** Every request answered 429 / refused for its timestamp / not connecting, for `forMs`. */
  | { kind: 'storm-429' | 'clock-skew' | 'venue-down'; atMs: number; forMs: number }
  /** Answers take up to `jitterMs` more each way (they overtake one another), and polls' answers come twice, for `forMs`. */
  | { kind: 'reorder'; atMs: number; jitterMs: number; forMs: number }
  /** The daemon freezes for `forMs` (its lease lapses); a second daemon takes the lease, fences the journal `fenceAfterMs` later and holds it `holdMs`. */
  | { kind: 'lease-takeover'; atMs: number; forMs: number; fenceAfterMs: number; holdMs: number }
  /** The lease store cannot be reached for `forMs`. */
  | { kind: 'lease-outage'; atMs: number; forMs: number }
  /** A symbol's price jumps by `pct` percent (a futures one through liquidation, when large). */
  | { kind: 'price-gap'; atMs: number; symbol: string; pct: number }
  /** A strategy throws on its next hook, or floods intents. */
  | { kind: 'strategy-throws' | 'strategy-floods'; atMs: number; strategyId: string };

export type FaultKind = Fault['kind'];

export const FAULT_KINDS: readonly FaultKind[] = [
  'crash',
  'kill',
  'venue-restart',
  'read-lag',
  'accept-then-500',
  'timeout-after-act',
  'left-out',
  'storm-429',
  'clock-skew',
  'venue-down',
  'reorder',
  'lease-takeover',
  'lease-outage',
  'price-gap',
  'strategy-throws',
  'strategy-floods',
];

export interface ScheduleShape {
  /** The span faults are drawn in (the rest of the run is calm: everything must settle there). */
  faultSpanMs: number;
  /** How many faults at most. */
  maxFaults: number;
  /** Symbols a price gap may hit, and strategies that may throw or flood. */
  symbols: readonly string[];
  strategyIds: readonly string[];
  /** Kinds drawn (default: all). */
  kinds?: readonly FaultKind[];
}

/** Draws a run's schedule from its seed: 1 to maxFaults faults, in time order. */
export function drawSchedule(seed: number, shape: ScheduleShape): Fault[] {
  const rng = new Prng(deriveSeed(seed, 'schedule'));
  const kinds = shape.kinds ?? FAULT_KINDS;
  const n = 1 + rng.below(shape.maxFaults);
  const out: Fault[] = [];
  const ms = (lo: number, hi: number) => lo + rng.below(hi - lo + 1);
  const pick = <T>(xs: readonly T[]): T => xs[rng.below(xs.length)]!;
  for (let i = 0; i < n; i++) {
    const kind = pick(kinds);
    const atMs = ms(5_000, shape.faultSpanMs);
    switch (kind) {
      case 'crash':
        out.push({ kind, atMs, point: pick(KILL_POINTS), nth: 1 + rng.below(3), downMs: ms(100, 30_000) });
        break;
      case 'kill':
        out.push({ kind, atMs, downMs: ms(100, 30_000) });
        break;
      case 'read-lag':
        out.push({ kind, atMs, lagMs: ms(100, 60_000), forMs: ms(1_000, 120_000) });
        break;
      case 'storm-429':
      case 'clock-skew':
      case 'venue-down':
        out.push({ kind, atMs, forMs: ms(500, 60_000) });
        break;
      case 'reorder':
        out.push({ kind, atMs, jitterMs: ms(10, 3_000), forMs: ms(1_000, 120_000) });
        break;
      case 'lease-takeover':
        out.push({ kind, atMs, forMs: ms(16_000, 40_000), fenceAfterMs: ms(0, 30_000), holdMs: ms(1_000, 30_000) });
        break;
      case 'lease-outage':
        out.push({ kind, atMs, forMs: ms(1_000, 30_000) });
        break;
      case 'price-gap':
        out.push({ kind, atMs, symbol: pick(shape.symbols), pct: (rng.below(2) ? 1 : -1) * ms(1, 30) });
        break;
      case 'strategy-throws':
      case 'strategy-floods':
        out.push({ kind, atMs, strategyId: pick(shape.strategyIds) });
        break;
      default:
        out.push({ kind, atMs });
    }
  }
  return out.sort((a, b) => a.atMs - b.atMs);
}

/** When a fault's standing trouble ends (its start for a one-off). */
export function faultEndMs(f: Fault): number {
  switch (f.kind) {
    case 'crash':
    case 'kill':
      return f.atMs + f.downMs;
    case 'read-lag':
      return f.atMs + f.forMs + f.lagMs;
    case 'lease-takeover':
      return f.atMs + f.forMs + f.fenceAfterMs + f.holdMs;
    case 'storm-429':
    case 'clock-skew':
    case 'venue-down':
    case 'reorder':
    case 'lease-outage':
      return f.atMs + f.forMs;
    default:
      return f.atMs;
  }
}

/** One line per fault, as a replay command takes them back (JSON). */
export function scheduleText(faults: readonly Fault[]): string {
  return JSON.stringify(faults);
}

export function parseSchedule(text: string): Fault[] {
  const parsed = JSON.parse(text) as unknown;
  if (!Array.isArray(parsed)) throw new Error('a schedule is a JSON array of faults');
  for (const f of parsed as Array<Partial<Fault>>) {
    if (!f || !FAULT_KINDS.includes(f.kind as FaultKind) || typeof f.atMs !== 'number') throw new Error(`not a fault: ${JSON.stringify(f)}`);
  }
  return parsed as Fault[];
}
