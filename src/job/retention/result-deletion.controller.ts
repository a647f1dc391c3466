import { Controller, Delete, HttpCode, HttpStatus, Param } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '../../common/http/api-docs.js';
import { Access, Allow, CurrentPrincipal } from '../../auth/access.decorators.js';
import { ApiAuth, ApiErrors } from '../../auth/api-auth.decorator.js';
import type { Principal } from '../../auth/principal.js';
import { FetCode } from '../../engine/errors/fet-code.js';
import { EXAMPLE_ID, invalidId, notFound, STORE_UNAVAILABLE } from '../../common/http/api-error-cases.js';
import { mergeErrorAnswers } from '../../common/http/api-error-response.js';
import { ParseIdPipe } from '../../common/http/parse-id.pipe.js';
import { ResultDeletionService } from './result-deletion.service.js';

/** Any principal; a product principal deletes only its own products' results. */
@ApiTags('jobs')
@ApiAuth()
@Allow(Access.Principal)
@Controller('v1/fetcher')
export class ResultDeletionController {
  constructor(private readonly deletion: ResultDeletionService) {}

  @Delete(':id/result')
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({
    summary: 'Delete a completed job’s result once it has been consumed',
    description: 'Removes the stored object; GET …/result then answers 410. Deleting again answers 204 again.',
  })
  @ApiResponse({ status: 204, description: 'The result is deleted (or already was)' })
  @ApiErrors(
    Access.Principal,
    mergeErrorAnswers(invalidId('job'), notFound('job'), {
      409: [
        [FetCode.JobNotCompleted, `job ${EXAMPLE_ID} is processing: only a completed job has a result to delete`],
        [FetCode.JobNotCompleted, `job ${EXAMPLE_ID} is failed: only a completed job has a result to delete`, { label: 'failed' }],
      ],
      503: [
        STORE_UNAVAILABLE,
        [
          FetCode.ServiceUnavailable,
          'the result is marked deleted, but the store could not remove it now; the retention sweep will finish it, and retrying is safe',
          { label: 'object store' },
        ],
      ],
    }),
  )
  delete(@Param('id', new ParseIdPipe('job')) id: string, @CurrentPrincipal() principal: Principal): Promise<void> {
    return this.deletion.deleteForPrincipal(id, principal);
  }
}
