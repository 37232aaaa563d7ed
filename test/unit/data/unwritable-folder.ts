// A folder nothing can be written into, for tests of what happens then: read-only (mode 0555), and immutable as well
// when the tests run as root (who writes into read-only folders); where neither holds, a folder under a plain file.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Whether writing a file into `folder` (creating it first if needed) fails. */
export function cannotWrite(folder: string): boolean {
  const probe = join(folder, `probe-${process.pid}`);
  try {
    mkdirSync(folder, { recursive: true });
    writeFileSync(probe, 'x');
  } catch {
    return true;
  }
  rmSync(probe, { force: true });
  return false;
}

/** Makes such a folder at `path` (or, failing that, names one under a plain file); `undo` lets it be removed. */
export function unwritableFolder(path: string): { path: string; undo: () => void } {
  mkdirSync(path, { recursive: true });
  chmodSync(path, 0o555);
  let immutable = false;
  if (!cannotWrite(path)) {
    try {
      execFileSync('chattr', ['+i', path], { stdio: 'ignore' });
      immutable = true;
    } catch {
      // no chattr, or a file system without the attribute
    }
  }
  const undo = () => {
    if (immutable) execFileSync('chattr', ['-i', path], { stdio: 'ignore' });
    chmodSync(path, 0o755);
  };
  if (cannotWrite(path)) return { path, undo };
  undo();
  const file = `${path}-file`;
  writeFileSync(file, 'not a folder');
  return { path: join(file, 'cache'), undo: () => {} };
}
