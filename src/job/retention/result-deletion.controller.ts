import { Controller, Delete, HttpCode, HttpStatus, Param } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '../../common/http/api-docs.js';
import { Access, Allow, CurrentPrincipal } from '../../auth/access.decorators.js';
import { ApiAuth } from '../../auth/api-auth.decorator.js';
import type { Principal } from '../../auth/principal.js';
import { FetCode } from '../../common/errors/fet-code.js';
import { ApiErrorResponse } from '../../common/http/api-error-response.js';
import { ParseIdPipe } from '../../common/http/parse-id.pipe.js';
import { ResultDeletionService } from './result-deletion.service.js';

/** Any principal; a product principal deletes only its own products' results. */
@ApiTags('jobs')
@ApiAuth(Access.Principal)
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
  @ApiErrorResponse(400, [[FetCode.InvalidPathId, 'invalid job id']])
  @ApiErrorResponse(404, [
    [
      FetCode.NotFound,
      'It was not possible to find the job entity during the requested flow. Please review the data provided in the request.',
    ],
  ])
  @ApiErrorResponse(409, [
    [FetCode.JobNotCompleted, 'job 0190f3c2-0000-7000-8000-000000000000 is processing: only a completed job has a result to delete'],
  ])
  @ApiErrorResponse(503, [
    [
      FetCode.ServiceUnavailable,
      'the result is marked deleted, but the store could not remove it now; the retention sweep will finish it, and retrying is safe',
    ],
  ])
  delete(@Param('id', new ParseIdPipe('job')) id: string, @CurrentPrincipal() principal: Principal): Promise<void> {
    return this.deletion.deleteForPrincipal(id, principal);
  }
}
