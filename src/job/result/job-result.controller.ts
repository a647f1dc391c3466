import { Controller, Get, Param, Query, Res, type StreamableFile } from '@nestjs/common';
import { ApiTags } from '../../common/http/api-docs.js';
import type { Response } from 'express';
import { Access, Allow, CurrentPrincipal } from '../../auth/access.decorators.js';
import { ApiAuth } from '../../auth/api-auth.decorator.js';
import type { Principal } from '../../auth/principal.js';
import { ParseIdPipe } from '../../common/http/parse-id.pipe.js';
import { ApiPartDownload, ApiResultDownload } from './job-result.api-docs.js';
import { JobResultService } from './job-result.service.js';
import { parseResultDownloadQuery } from './result-download.query.js';

/** Any principal; a product principal reads only its own products' results, like JobController. */
@ApiTags('jobs')
@ApiAuth()
@Allow(Access.Principal)
@Controller('v1/fetcher')
export class JobResultController {
  constructor(private readonly results: JobResultService) {}

  @Get(':id/result')
  @ApiResultDownload()
  async result(
    @Param('id', new ParseIdPipe('job')) id: string,
    @Query() query: Record<string, unknown>,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) response: Response,
  ): Promise<StreamableFile> {
    const download = await this.results.open(id, parseResultDownloadQuery(query), principal);
    response.set(download.headers);
    return download.file;
  }

  /** `table` is the result key, URL-encoded by the client (`public.orders`, `a%2Fb`); Express decodes both. */
  @Get(':id/result/:datasource/:table')
  @ApiPartDownload()
  async part(
    @Param('id', new ParseIdPipe('job')) id: string,
    @Param('datasource') datasource: string,
    @Param('table') table: string,
    @Query() query: Record<string, unknown>,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) response: Response,
  ): Promise<StreamableFile> {
    const download = await this.results.openPart(id, { datasource, table }, parseResultDownloadQuery(query), principal);
    response.set(download.headers);
    return download.file;
  }
}
