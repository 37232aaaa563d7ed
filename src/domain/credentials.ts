// API credentials: read from the environment or secret files, held in memory only, never logged.
export interface Credentials {
  apiKey: string;
  apiSecret: string;
  passphrase: string;
}
