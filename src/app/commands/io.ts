// What every command writes to and reports with: the output streams, the exit code, the default config file.
import { scrubSecrets } from '../../util/logger.js';

/** Where a command writes: stdout for results, stderr for problems and notes (secrets scrubbed). */
export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Output goes to a person's terminal (not a pipe, a file or a log collector). */
  terminal?: () => boolean;
}

/** Takes the exit code of the command that ran. */
export type SetCode = (code: number) => void;

export const DEFAULT_CONFIG = 'config/default.yaml';

/** The daemon's config in a user folder `sextant init` wrote: the default where config/default.yaml is not there. */
export const USER_FOLDER_CONFIG = 'config/dry-run.yaml';

const withNewline = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);

export const stdio: Io = {
  out: (text) => process.stdout.write(withNewline(text)),
  err: (text) => process.stderr.write(scrubSecrets(withNewline(text))),
  terminal: () => process.stdout.isTTY === true,
};
