// Reads a notifier's secret (a webhook secret, a Discord webhook URL, a bot token) from the environment variable the
// config names, or from the file its `<name>_FILE` variant points to (docker secrets), as the API credentials are
// read; the value is registered so no log line or error text carries it.
import { readSecret, type ConfigIssue } from '../../config/load.js';
import { registerSecret, registerUrlCredentials } from '../../util/secrets.js';

type Env = Record<string, string | undefined>;

/** The secret in `name` (or `name_FILE`), or why there is none: the problem names the variable, never a value. */
export function readEnvSecret(env: Env, name: string): { value: string } | { problem: string } {
  const issues: ConfigIssue[] = [];
  const value = readSecret(env, name, issues);
  if (issues.length) return { problem: issues.map((i) => i.message).join('; ') };
  if (!value) return { problem: `${name} (or ${name}_FILE) is not set` };
  registerSecret(value);
  registerUrlCredentials(value);
  return { value };
}
