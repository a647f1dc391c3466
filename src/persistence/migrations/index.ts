import { InitialSchema1764489600000 } from './1764489600000-initial-schema.js';

/** Every migration, in order. Listed explicitly so the compiled app needs no file globbing. */
export const MIGRATIONS = [InitialSchema1764489600000];
