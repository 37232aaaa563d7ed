// Whether the venue takes our keys: trading stays fenced (cancels allowed) until a signed read has succeeded, and
// whenever the client's authentication halt has tripped. The operator clears the halt by command (`sextant
// clear-auth-halt`): signed requests go again, and the keys are proven by a signed read before the fence lifts.
import type { Executor } from '../execution/executor.js';
import type { CommandResult } from '../ops/control.js';
import type { Logger } from '../util/logger.js';

/** The operator's command that clears the authentication halt (the control API's POST /trading/clear-auth-halt). */
const CLEAR_AUTH_HALT = 'sextant clear-auth-halt';

/** Checks that the venue takes our keys (live venues only): trading stays fenced until it does. */
export interface KeyCheck {
  /** Why the venue's refusals of our keys halted signing, if they did. */
  authHalt(): { reason: string } | undefined;
  /** Lets signed requests go again, the count of refusals cleared. */
  resetAuthHalt(): void;
  /** A signed read that succeeds with working keys (throws otherwise). */
  probe(surfaces: ReadonlyArray<'spot' | 'futures'>): Promise<void>;
}

/** What clearing the halt found: the halt cleared (if one was), the keys proven or not, the fence after. */
export interface AuthHaltCleared {
  /** False: no keys to check (a paper venue). */
  checked: boolean;
  /** The halt's reason, when one was cleared. */
  cleared: string | undefined;
  keysWork: boolean;
  fenced: string | null;
}

export class KeyGate {
  private proven: boolean;

  constructor(
    private readonly keys: KeyCheck | undefined,
    /** The surfaces traded: a signed read on each shows the keys work. */
    private readonly surfaces: ReadonlyArray<'spot' | 'futures'>,
    private readonly executor: Executor,
    private readonly log: Logger,
  ) {
    this.proven = !keys || surfaces.length === 0;
  }

  get checked(): boolean {
    return this.keys !== undefined;
  }

  /** Whether a signed read has shown the keys work (since the last halt cleared). */
  get keysWork(): boolean {
    return this.proven;
  }

  /** Whether the venue takes our keys: the fence stays up with the reason while it does not, or once it has refused them. */
  async usable(): Promise<boolean> {
    const { keys, executor, log } = this;
    if (!keys) return true;
    const halt = keys.authHalt();
    if (halt) {
      const reason = `authentication halted: ${halt.reason}`;
      if (executor.fenced !== reason) log.error({ reason }, `trading halted: the venue refused our keys (once they are fixed: ${CLEAR_AUTH_HALT})`);
      executor.fence(reason);
      return false;
    }
    if (this.proven) return true;
    try {
      await keys.probe(this.surfaces);
      this.proven = true;
      return true;
    } catch (err) {
      const reason = `no signed request has succeeded yet: ${(err as Error).message}`;
      if (executor.fenced !== reason) log.warn({ reason }, 'trading fenced (cancels allowed)');
      executor.fence(reason);
      return false;
    }
  }

  /**
   * Clears the authentication halt: signed requests go again, and the keys count as unproven until a signed read
   * succeeds (usable() probes them). Without a halt nothing changes. Returns the halt's reason, if there was one.
   */
  clearHalt(): string | undefined {
    const halt = this.keys?.authHalt();
    if (!halt) return undefined;
    this.log.warn({ reason: halt.reason }, 'authentication halt cleared by an operator: the keys are probed before trading resumes');
    this.keys!.resetAuthHalt();
    this.proven = this.surfaces.length === 0;
    return halt.reason;
  }
}

/** The operator's answer to clearing the halt: 409 while the signed read fails (the fence stays), else what holds trading still. */
export function clearedResult(outcome: AuthHaltCleared): CommandResult {
  if (!outcome.checked) return { ok: false, status: 409, error: 'this daemon has no venue keys to check: nothing to clear' };
  const was = outcome.cleared !== undefined ? 'authentication halt cleared' : 'signed requests were not halted';
  if (!outcome.keysWork)
    return { ok: false, status: 409, error: `${was}, but the signed read failed: trading stays fenced (${outcome.fenced ?? 'keys unproven'})` };
  return { ok: true, detail: `${was}; the keys work: ${outcome.fenced ? `trading stays fenced: ${outcome.fenced}` : 'nothing fences trading'}` };
}
