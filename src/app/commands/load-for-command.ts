// Loading a command's config file: every problem reported as file:line:col: path: message, then a count.
import { formatIssue, type ConfigIssue } from '../../config/load.js';
import { loadCheckedConfig, type ConfigCheck, type LoadCheckedOptions } from '../config-check.js';
import type { Io } from './io.js';

export function reportIssues(issues: ConfigIssue[], file: string, io: Io): void {
  for (const issue of issues) io.err(formatIssue(issue));
  io.err(`${issues.length} error${issues.length === 1 ? '' : 's'} in ${file}`);
}

/** Loads and checks `file` (loadCheckedConfig); on any problem reports them all and resolves to undefined. */
export async function loadForCommand(file: string, io: Io, opts: LoadCheckedOptions = {}): Promise<ConfigCheck | undefined> {
  const result = await loadCheckedConfig(file, opts);
  if (result.ok) return result.check;
  reportIssues(result.issues, file, io);
  return undefined;
}
