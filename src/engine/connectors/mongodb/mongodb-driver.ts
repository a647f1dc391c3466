import type * as mongodbModule from 'mongodb';
import { lazyDriver } from '../shared/lazy-driver.js';

/** The MongoDB driver (and its BSON), loaded on the first MongoDB connection or filter. */
export const mongodb = lazyDriver<typeof mongodbModule>('mongodb');
