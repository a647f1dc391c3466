import { EntitySchema } from 'typeorm';
import { columnTypes, type DatabaseKind } from '../../persistence/database-kind.js';

/** A product's API key. The key itself is never stored: only its SHA-256. */
export interface ApiKeyRecord {
  id: string;
  productName: string;
  name: string;
  keyHash: string;
  /** The principal that created it, for audit. */
  createdBy: string | null;
  createdAt: Date;
  revokedAt: Date | null;
}

export const API_KEY_ENTITY = 'ApiKey';

export function apiKeyEntity(kind: DatabaseKind): EntitySchema<ApiKeyRecord> {
  const types = columnTypes(kind);
  return new EntitySchema<ApiKeyRecord>({
    name: API_KEY_ENTITY,
    tableName: 'api_keys',
    columns: {
      id: { type: 'varchar', length: 36, primary: true },
      productName: { type: 'varchar', length: 100, name: 'product_name' },
      name: { type: 'varchar', length: 100 },
      keyHash: { type: 'varchar', length: 64, name: 'key_hash' },
      createdBy: { type: 'varchar', length: 200, name: 'created_by', nullable: true },
      createdAt: { type: types.timestamp, name: 'created_at' },
      revokedAt: { type: types.timestamp, name: 'revoked_at', nullable: true },
    },
  });
}
