// The simulator of the whole daemon (npm run simtest): a sample of seeds passes on the real build; a run replays byte
// for byte from its seed; each defect the simulator found (test/fixtures/simtest/regressions.json) fails its seed with
// the fix undone and passes it now; each mutant of test/fixtures/simtest/mutants.json (one line of the executor, the
// tracker, the journal or the lease, broken on purpose) is caught by the seed recorded for it, as the invariant it
// breaks, while the real build passes that seed; and the shrinker takes a failing schedule down to one that still
// fails the same way. CI runs 2,000 seeds besides.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { buildMutant, firstFailure, runSimtest } from '../fixtures/simtest/mutant.mjs';

const ROOT = join(import.meta.dirname, '..', '..');
const MAIN = join(ROOT, 'dist', 'app', 'simtest', 'main.js');
const SAMPLE = Number(process.env.SEXTANT_SIMTEST_SEEDS ?? 40);

interface Mutant {
  name: string;
  invariant: string;
  file: string;
  find: string;
  replace: string;
  what: string;
  /** The seed that caught it (scripts/simtest-mutants.mjs finds it). */
  seed: number;
}

const MUTANTS = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'simtest', 'mutants.json'), 'utf8')) as Mutant[];

/** The defects the simulator found, each with its fix undone (`find` the fixed code, `replace` it as it was) and its seed. */
interface Regression extends Omit<Mutant, 'what'> {
  found: string;
}

const REGRESSIONS = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'simtest', 'regressions.json'), 'utf8')) as Regression[];

const digestOf = (out: string) => /^digest ([0-9a-f]+)$/m.exec(out)?.[1];

describe('the simulator of the whole daemon', () => {
  it(`passes ${SAMPLE} seeds on the real build, with their figures`, async () => {
    const { code, out } = await runSimtest(MAIN, ['--seeds', String(SAMPLE), '--from', '7001', '--shrink', '0', '--quiet']);
    expect(out).toMatch(new RegExp(`^${SAMPLE} runs of 10\\+ virtual minutes .* 0 failed$`, 'm'));
    expect(code).toBe(0);
  }, 600_000);

  it('replays a run byte for byte from its seed, and from its schedule', async () => {
    const a = await runSimtest(MAIN, ['--seed', '31']);
    const b = await runSimtest(MAIN, ['--seed', '31']);
    expect(digestOf(a.out)).toMatch(/^[0-9a-f]{32}$/);
    expect(digestOf(b.out)).toBe(digestOf(a.out));
    const schedule = /^schedule (.*)$/m.exec(a.out)![1]!;
    const c = await runSimtest(MAIN, ['--seed', '31', '--schedule', schedule]);
    expect(digestOf(c.out)).toBe(digestOf(a.out));
    // Another seed is another run.
    const d = await runSimtest(MAIN, ['--seed', '32']);
    expect(digestOf(d.out)).not.toBe(digestOf(a.out));
  }, 120_000);

  it.each(REGRESSIONS)(
    'seed $seed found a defect ($found): it fails as $invariant with the fix undone, and passes',
    async (r) => {
      const real = await runSimtest(MAIN, ['--seed', String(r.seed)]);
      expect(real.out).toMatch(new RegExp(`^seed ${r.seed}: passed`, 'm'));
      expect(real.code).toBe(0);
      const before = await runSimtest(buildMutant(ROOT, r), ['--seed', String(r.seed)]);
      expect(firstFailure(before.out)).toEqual({ seed: r.seed, invariant: r.invariant });
    },
    180_000,
  );

  it.each(MUTANTS)(
    'catches the mutant $name as $invariant by seed $seed ($what)',
    async (m) => {
      const real = await runSimtest(MAIN, ['--seed', String(m.seed)]);
      expect(real.out).toMatch(new RegExp(`^seed ${m.seed}: passed`, 'm'));
      const broken = await runSimtest(buildMutant(ROOT, m), ['--seed', String(m.seed)]);
      expect(broken.code).toBe(1);
      expect(firstFailure(broken.out)).toEqual({ seed: m.seed, invariant: m.invariant });
    },
    180_000,
  );

  it('shrinks a failing schedule to one that still fails the same way, and prints the command that replays it', async () => {
    const m = MUTANTS.find((x) => x.invariant === 'untracked-resting')!;
    const entry = buildMutant(ROOT, m);
    const { out } = await runSimtest(entry, ['--seeds', '1', '--from', String(m.seed), '--shrink', '1']);
    const shrunk = /^shrunk seed (\d+) from (\d+) faults to (\d+) .*\n {2}replay: npm run simtest -- --seed \d+ --schedule '(.*)'$/m.exec(out);
    expect(shrunk).not.toBeNull();
    expect(Number(shrunk![3])).toBeLessThanOrEqual(Number(shrunk![2]));
    const again = await runSimtest(entry, ['--seed', String(m.seed), '--schedule', shrunk![4]!]);
    expect(firstFailure(again.out)?.invariant).toBe(m.invariant);
    expect(JSON.parse(shrunk![4]!)).toHaveLength(Number(shrunk![3]));
  }, 300_000);
});
