// A command's config loaded (loadForCommand) and a running daemon's reloaded (SIGHUP): every problem said.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { loadForCommand } from '../../../../src/app/commands/load-for-command.js';
import { reloadConfig } from '../../../../src/app/commands/run.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-load-'));

function file(name: string, lines: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, [...lines, ''].join('\n'));
  return path;
}

describe('loadForCommand', () => {
  it('reports every problem and the count on stderr', async () => {
    const path = file('bad.yaml', ['mode: nope', 'exchange: { extra: 1 }']);
    const err: string[] = [];
    expect(await loadForCommand(path, { out: () => {}, err: (text) => void err.push(text) }, { strategies: false })).toBeUndefined();
    expect(err).toEqual([expect.stringMatching(new RegExp(`^${path}:1:7: mode: `)), `${path}:2:13: exchange.extra: unknown key`, `2 errors in ${path}`]);
  });
});

describe('reloadConfig (SIGHUP)', () => {
  function fakes(problems: string[] = []) {
    const warned: Array<{ problems: string[]; msg: string }> = [];
    const reloaded: string[] = [];
    const daemon = { reload: (next: { file: string }) => (reloaded.push(next.file), problems) };
    const logger = { warn: (fields: { problems: string[] }, msg: string) => void warned.push({ problems: fields.problems, msg }) };
    return { warned, reloaded, daemon, logger };
  }

  it('a file in error is refused with every problem, and the daemon is not asked', async () => {
    const path = file('reload-bad.yaml', ['mode: nope', 'exchange: { extra: 1 }']);
    const { warned, reloaded, daemon, logger } = fakes();
    await reloadConfig(path, daemon as never, logger as never);
    expect(reloaded).toEqual([]);
    expect(warned).toEqual([
      {
        problems: [expect.stringMatching(new RegExp(`^${path}:1:7: mode: `)), `${path}:2:13: exchange.extra: unknown key`],
        msg: 'config reload refused: the running config stays',
      },
    ]);
  });

  it('a valid file goes to the daemon; what it refuses is logged the same way', async () => {
    const path = file('reload-ok.yaml', []);
    const accepted = fakes();
    await reloadConfig(path, accepted.daemon as never, accepted.logger as never);
    expect({ reloaded: accepted.reloaded, warned: accepted.warned }).toEqual({ reloaded: [path], warned: [] });
    const refused = fakes(['strategies changed: restart to apply']);
    await reloadConfig(path, refused.daemon as never, refused.logger as never);
    expect(refused.warned).toEqual([{ problems: ['strategies changed: restart to apply'], msg: 'config reload refused: the running config stays' }]);
  });
});
