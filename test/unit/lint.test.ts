// The tree passes the linter (eslint.config.js: typescript-eslint with the types tsc sees), and the linter fails on a
// file with the defects it is there for, naming file, line and rule: `npm run lint` shows the same.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from '@jest/globals';

const ESLINT = 'node_modules/eslint/bin/eslint.js';
const FIXTURE = 'test/fixtures/lint-bad/faulty.ts';

interface Finding {
  file: string;
  line: number;
  rule: string | null;
}

/** ESLint over `paths` with its JSON report: the exit code and every finding. */
function lint(paths: string[], extra: string[] = []): { code: number | null; findings: Finding[]; stderr: string } {
  const r = spawnSync(process.execPath, [ESLINT, '--format', 'json', ...extra, ...paths], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const files = (r.stdout ? JSON.parse(r.stdout) : []) as Array<{ filePath: string; messages: Array<{ line: number; ruleId: string | null }> }>;
  const findings = files.flatMap((f) => f.messages.map((m) => ({ file: f.filePath.slice(process.cwd().length + 1), line: m.line, rule: m.ruleId })));
  return { code: r.status, findings, stderr: r.stderr };
}

describe('the linter', () => {
  it('finds nothing in the tree (else: `npm run lint` names each finding)', () => {
    const r = lint(['.']);
    expect({ code: r.code, findings: r.findings, stderr: r.stderr }).toEqual({ code: 0, findings: [], stderr: '' });
  }, 300_000);

  it('fails on a floating promise, a switch missing a case, an unused parameter and an `any` from JSON.parse, naming each', () => {
    // The fixture is in the config's ignores (the tree's lint leaves it out); --no-ignore checks it here.
    const r = lint([FIXTURE], ['--no-ignore']);
    expect(r.code).toBe(1);
    expect(r.findings).toEqual([
      { file: FIXTURE, line: 11, rule: '@typescript-eslint/no-floating-promises' },
      { file: FIXTURE, line: 16, rule: '@typescript-eslint/switch-exhaustiveness-check' },
      { file: FIXTURE, line: 26, rule: '@typescript-eslint/no-unused-vars' },
      { file: FIXTURE, line: 32, rule: '@typescript-eslint/no-unsafe-assignment' },
      { file: FIXTURE, line: 33, rule: '@typescript-eslint/no-unsafe-return' },
      { file: FIXTURE, line: 33, rule: '@typescript-eslint/no-unsafe-member-access' },
    ]);
  }, 120_000);
});
