import { setFlagsFromString } from 'node:v8';
import { SERVICE_V8_FLAGS } from './runtime-flags.js';

// Imported first by main.ts: the flags take effect before the service allocates its heap.
setFlagsFromString(SERVICE_V8_FLAGS);
