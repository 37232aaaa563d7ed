// Where a venue record is being read (endpoint, field path) and the field readers every parser shares: a bad
// required value fails naming endpoint and field; an odd optional one is reported as an anomaly, never guessed.
import { Decimal } from '../../domain/decimal.js';
import type { EndpointId } from '../endpoints.js';
import { ExchangeError } from '../errors.js';

export interface Anomaly {
  endpoint: EndpointId;
  field: string;
  value: unknown;
  note: string;
}

/** Where a record came from, and where its oddities are reported. */
export class ParseContext {
  readonly anomalies: Anomaly[] = [];
  constructor(readonly endpoint: EndpointId) {}

  report(field: string, value: unknown, note: string): void {
    this.anomalies.push({ endpoint: this.endpoint, field, value, note });
  }

  fail(field: string, message: string): never {
    throw new ExchangeError('bad-response', `${field}: ${message}`, { endpoint: this.endpoint, field });
  }

  /** A decimal that must be known. */
  dec(field: string, text: string | undefined): Decimal {
    if (text === undefined || text === '') return this.fail(field, `a value is required, got ${text === undefined ? 'nothing' : '""'}`);
    const value = Decimal.parse(text);
    return value ?? this.fail(field, `not a decimal: ${JSON.stringify(text)}`);
  }

  /** A decimal that may be unknown ("" or absent -> null). */
  decOpt(text: string | undefined | null): Decimal | null {
    if (text === undefined || text === null || text === '') return null;
    return Decimal.parse(text);
  }

  /** A decimal that must be known and above zero (tick and step sizes, fill sizes). */
  positive(field: string, text: string | undefined): Decimal {
    const value = this.dec(field, text);
    return value.gt(Decimal.ZERO) ? value : this.fail(field, `must be above zero, got ${JSON.stringify(text)}`);
  }

  /** A price that may be unknown; zero or negative is reported and taken as unknown (null), never as a price. */
  priceOpt(field: string, text: string | undefined | null): Decimal | null {
    const value = this.decOpt(text);
    if (value === null || value.gt(Decimal.ZERO)) return value;
    this.report(field, text, 'non-positive price taken as unknown');
    return null;
  }

  /** Milliseconds since the epoch, or null when absent, "" or not a safe integer. */
  time(raw: number | string | undefined): number | null {
    if (raw === undefined || raw === '') return null;
    const ms = typeof raw === 'number' ? raw : Number(raw);
    return Number.isSafeInteger(ms) ? ms : null;
  }
}

/** A record's field name -> its path in the answer, as errors and anomalies name it. */
export type FieldNamer = (name: string) => string;

/** Names the fields of the record at `path` (`data[2]` -> `data[2].price`; "" for a bare object -> `price`). */
export function fieldsAt(path: string): FieldNamer {
  return (name) => (path ? `${path}.${name}` : name);
}
