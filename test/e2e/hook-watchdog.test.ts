// The process's hook watchdog (src/strategy/hook-watchdog.ts) in a process of its own, since it works through SIGINT:
// a looping hook stopped at its budget without a thread per call; SIGINT listeners still hear a Ctrl+C, whether it comes
// while idle or during a hook; with none left, a SIGINT ends the process as Node's default has it. On the compiled dist/.
import { spawn } from 'node:child_process';
import { describe, expect, it } from '@jest/globals';

interface Step {
  step: string;
  [k: string]: unknown;
}

describe('hook watchdog', () => {
  it('stops a looping hook at its budget with no thread per call, and keeps SIGINT for the process', async () => {
    const p = spawn(process.execPath, ['test/fixtures/hook-watchdog-child.mjs'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += String(d)));
    p.stderr.on('data', (d) => (err += String(d)));
    const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      p.on('close', (c, s) => resolve({ code: c, signal: s })),
    );
    const steps = new Map(
      out
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => {
          const s = JSON.parse(l) as Step;
          return [s.step, s];
        }),
    );
    expect(err).toBe('');
    // node:vm's watchdog runs a thread during the call; the keeper's run costs none.
    expect(steps.get('sigint-before-any-hook')).toEqual({ step: 'sigint-before-any-hook', heard: 1, onProcess: 0 });
    expect(steps.get('kept')).toEqual({ step: 'kept', keeping: true, extra: 0, vmExtra: 1 });
    // Stopped at its budget: never before, and well before a hang.
    for (const s of ['loop', 'loop-after-adopting']) {
      expect(steps.get(s)).toMatchObject({ ended: 'overran' });
      expect(steps.get(s)!.ms as number).toBeGreaterThanOrEqual(200);
      expect(steps.get(s)!.ms as number).toBeLessThan(5000);
    }
    expect(steps.get('adopted')).toEqual({ step: 'adopted', value: 7, onProcess: 0 });
    expect(steps.get('loops-after-rearming')).toEqual({ step: 'loops-after-rearming', overran: 30, onProcess: 0 });
    expect(steps.get('idle-sigint')).toEqual({ step: 'idle-sigint', heard: 1 });
    expect(steps.get('hook-sigint')).toMatchObject({ ended: 'interrupted', heard: 2 });
    expect(steps.get('hook-sigint')!.ms as number).toBeLessThan(5000);
    expect(steps.has('last')).toBe(true);
    expect(steps.has('still-alive')).toBe(false);
    expect({ code, signal }).toEqual({ code: null, signal: 'SIGINT' });
  });
});
