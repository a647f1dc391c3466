import { InitialSchema1764489600000 } from './1764489600000-initial-schema.js';
import { LeasesAndRelay1764576000000 } from './1764576000000-leases-and-relay.js';
import { PrincipalsAndKeyVersions1764662400000 } from './1764662400000-principals-and-key-versions.js';
import { ConsumerRoutes1764748800000 } from './1764748800000-consumer-routes.js';
import { NamesPerProduct1764835200000 } from './1764835200000-names-per-product.js';
import { ResultFormats1764921600000 } from './1764921600000-result-formats.js';
import { IncrementalStreams1765008000000 } from './1765008000000-incremental-streams.js';
import { Webhooks1765094400000 } from './1765094400000-webhooks.js';

/** Every migration, in order. Listed explicitly so the compiled app needs no file globbing. */
export const MIGRATIONS = [
  InitialSchema1764489600000,
  LeasesAndRelay1764576000000,
  PrincipalsAndKeyVersions1764662400000,
  ConsumerRoutes1764748800000,
  NamesPerProduct1764835200000,
  ResultFormats1764921600000,
  IncrementalStreams1765008000000,
  Webhooks1765094400000,
];
