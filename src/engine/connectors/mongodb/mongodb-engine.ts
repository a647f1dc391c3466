import { defineEngine } from '../shared/engine-definition.js';

/** MongoDB; the SSL modes are the original service's mongo-driver URI flags (mongodb-ssl.ts maps them onto MongoClient). */
export const MONGODB_ENGINE = defineEngine({
  type: 'MONGODB',
  label: 'MongoDB',
  defaultPort: 27017,
  ssl: { modes: ['disable', 'false', 'true', 'enable', 'insecure'], defaultMode: 'disable' },
  // The database the user is authenticated against (the connector reads no other metadata).
  identityMetadata: ['authSource'],
});
