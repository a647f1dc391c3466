import { Global, Module } from '@nestjs/common';
import { Clock, SystemClock } from './clock.js';
import { IdGenerator, RandomIdGenerator } from './id-generator.js';
import { Scheduler, TimerScheduler } from './scheduler.js';

/** The clock, id generation and timers every module reads; both roles import it once, at the root. */
@Global()
@Module({
  providers: [
    { provide: Clock, useClass: SystemClock },
    { provide: IdGenerator, useClass: RandomIdGenerator },
    { provide: Scheduler, useClass: TimerScheduler },
  ],
  exports: [Clock, IdGenerator, Scheduler],
})
export class ClockModule {}
