import type mssqlModule from 'mssql';
import { lazyDriver } from '../shared/lazy-driver.js';

/** `mssql` (and tedious under it), loaded on the first SQL Server connection. */
export const mssql = lazyDriver<typeof mssqlModule>('mssql');
