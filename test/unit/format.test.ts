// The tree is formatted by Prettier (.prettierrc.json: 160 columns, the project's width), and the check fails on a
// file that is not, naming it: `npm run format` writes the tree formatted.
import { spawnSync } from 'node:child_process';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from '@jest/globals';

const PRETTIER = 'node_modules/prettier/bin/prettier.cjs';

/** `prettier --check` over `paths` (the ignore file given, or none): its exit code and what it said. */
function check(paths: string[], ignorePath?: string): { code: number | null; said: string } {
  // Colour off however the caller's terminal or CI asks for it (FORCE_COLOR), and any escape left stripped.
  const env = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };
  const r = spawnSync(process.execPath, [PRETTIER, '--check', ...(ignorePath ? ['--ignore-path', ignorePath] : []), ...paths], { encoding: 'utf8', env });
  return { code: r.status, said: stripVTControlCharacters(`${r.stdout}${r.stderr}`) };
}

describe('the formatter', () => {
  it('finds every file of the tree formatted (else: `npm run format`, and commit what it changed)', () => {
    const r = check(['.']);
    expect({ code: r.code, unformatted: r.said.split('\n').filter((l) => l.startsWith('[warn] ') && !/Code style issues/.test(l)) }).toEqual({
      code: 0,
      unformatted: [],
    });
  }, 180_000);

  it('fails on a file that is not formatted, naming it', () => {
    // The fixture is in .prettierignore (the tree's check leaves it); checked here with no ignore file.
    const r = check(['test/fixtures/format-bad/unformatted.ts'], '/dev/null');
    expect(r.code).toBe(1);
    expect(r.said).toContain('[warn] test/fixtures/format-bad/unformatted.ts');
  }, 60_000);
});
