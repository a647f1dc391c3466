/**
 * The clock the service's modules inject (ClockModule provides SystemClock under this token). The
 * class lives in the engine, the lowest layer, so that the engine's parts and the service's take
 * the same port.
 */
export { Clock, SystemClock, systemClock } from '../../engine/support/clock.js';
