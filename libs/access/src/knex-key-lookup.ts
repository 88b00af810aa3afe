import type { Knex } from 'knex';
import type { KeyLookup } from './key-lookup.ts';
import { API_KEY_COLUMNS, keyRecordOf, type ApiKeyRow, type KeyRecord } from './key-record.ts';

/**
 * KeyLookup on the api_keys table (owned by memory-store): the one place that reads it to
 * authenticate a call. Any connection that can read api_keys will do (the read replica is fine).
 */
export class KnexKeyLookup implements KeyLookup {
  constructor(private readonly knex: Knex) {}

  async findByHash(hash: string): Promise<KeyRecord | undefined> {
    const row = (await this.knex('api_keys').select(API_KEY_COLUMNS).where({ key_hash: hash }).first()) as
      ApiKeyRow | undefined;
    return row ? keyRecordOf(row) : undefined;
  }
}
