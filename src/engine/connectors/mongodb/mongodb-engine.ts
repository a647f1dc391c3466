import { defineEngine } from '../shared/engine-definition.js';

/**
 * MongoDB; the SSL modes are the original service's mongo-driver URI flags
 * (docs/compatibility.md#tls-modes), which mongodb-ssl.ts maps onto MongoClient.
 */
export const MONGODB_ENGINE = defineEngine({
  type: 'MONGODB',
  label: 'MongoDB',
  defaultPort: 27017,
  ssl: { modes: ['disable', 'false', 'true', 'enable', 'insecure'], defaultMode: 'disable' },
  // The database the user is authenticated against (the connector reads no other metadata).
  identityMetadata: ['authSource'],
});
