// API credentials: read from the environment or secret files, held in memory only, never logged.
import { createHash } from 'node:crypto';

export interface Credentials {
  apiKey: string;
  apiSecret: string;
  passphrase: string;
}

/**
 * The account a key belongs to, as it may be named outside memory (journal bindings, limiter keys): 16 hex digits of
 * the key's SHA-256, never the key.
 */
export function accountDigest(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex').slice(0, 16);
}
