import type mysql2Module from 'mysql2';
import { lazyDriver } from '../shared/lazy-driver.js';

/** mysql2, loaded on the first MySQL/MariaDB connection or statement. */
export const mysql2 = lazyDriver<typeof mysql2Module>('mysql2');
