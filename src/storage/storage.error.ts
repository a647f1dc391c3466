import { FetCode } from '../engine/errors/fet-code.js';
import { FetcherError, type FetcherErrorOptions } from '../common/errors/fetcher.error.js';

/** The result store or codec failed, or a result outgrew its limit. */
export class StorageError extends FetcherError {
  constructor(code: FetCode, message: string, options: FetcherErrorOptions = {}) {
    super(code, message, options);
  }

  static tooLarge(limitBytes: number): StorageError {
    return new StorageError(FetCode.ResultTooLarge, `extraction result exceeds the size limit of ${limitBytes} bytes; nothing was stored`);
  }
}
