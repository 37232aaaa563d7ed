// The registry of secret values (key, secret, passphrase) and the scrubber every log line and error text passes.
const REDACTED = '[redacted]';
const known = new Set<string>();

// Auth headers echoed back in a body or an error text: their values go, whatever they are.
const HEADER_RE = /(ACCESS[-_](?:SIGN|KEY|PASSPHRASE)["']?\s*[:=]\s*["']?)([^"',\s}&]+)/gi;

/** Registers a secret: its raw, Base64 and hex forms are scrubbed from then on. */
export function registerSecret(value: string | undefined): void {
  if (!value || value.length < 4) return;
  known.add(value);
  known.add(Buffer.from(value, 'utf8').toString('base64').replace(/=+$/, ''));
  known.add(Buffer.from(value, 'utf8').toString('hex'));
}

export function scrubSecrets(text: string): string {
  let out = text.replace(HEADER_RE, `$1${REDACTED}`);
  for (const s of known) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}
