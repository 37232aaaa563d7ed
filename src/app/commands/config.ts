// `sextant config check`: everything `run` would refuse in a config file, every problem at once.
import type { Command } from 'commander';
import type { Io, SetCode } from './io.js';
import { loadForCommand } from './load-for-command.js';

async function configCheck(file: string, io: Io): Promise<number> {
  const check = await loadForCommand(file, io);
  if (!check) return 1;
  io.out(`${file}: ok`);
  for (const note of check.notes) io.out(`  ${note}`);
  return 0;
}

export function registerConfig(program: Command, io: Io, setCode: SetCode): void {
  const config = program.command('config').description('configuration tools');
  config
    .command('check')
    .description(
      'check a config file for everything `run` would refuse (schema, strategies and their params, schedules, cron, symbols, polling plan); exits 0, or 1 listing every error as file:line:col: path: message',
    )
    .argument('<file>', 'YAML config file')
    .action(async (file: string) => setCode(await configCheck(file, io)));
}
