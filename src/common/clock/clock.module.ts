import { Global, Module } from '@nestjs/common';
import { Clock, SystemClock } from './clock.js';
import { IdGenerator, RandomIdGenerator } from './id-generator.js';

/** The clock and id generation every module reads; both roles import it once, at the root. */
@Global()
@Module({
  providers: [
    { provide: Clock, useClass: SystemClock },
    { provide: IdGenerator, useClass: RandomIdGenerator },
  ],
  exports: [Clock, IdGenerator],
})
export class ClockModule {}
