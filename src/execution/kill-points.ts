// Named points in the order path where a crash is most dangerous; tests crash there on purpose (scenario R5).
export type KillPoint = 'before-journal' | 'after-journal' | 'after-send' | 'after-journal-update' | 'during-cancel' | 'during-reconcile';

export const KILL_POINTS: readonly KillPoint[] = ['before-journal', 'after-journal', 'after-send', 'after-journal-update', 'during-cancel', 'during-reconcile'];

export interface KillHooks {
  /** Called at each kill point; a test throws here to simulate the process dying. */
  at(point: KillPoint): void;
}

export const NO_KILL: KillHooks = { at: () => undefined };
