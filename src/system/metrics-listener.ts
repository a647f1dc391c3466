import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { FET_CATALOGUE, FetCode } from '../engine/errors/fet-code.js';
import { MetricsService } from './metrics.service.js';

/** A scrape still running at shutdown gets this long before its connection is cut. */
const CLOSE_GRACE_MS = 1_000;

/**
 * /metrics on a port of its own (METRICS_PORT): a plain node:http server with one route and no
 * credential, for a scraper on a network the API's callers cannot reach. It starts with the
 * application (a port in use stops the boot) and closes at shutdown.
 */
@Injectable()
export class MetricsListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Metrics');
  private server?: Server;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: MetricsService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const port = this.config.metrics.port;
    if (port === undefined) return;
    const host = this.config.metrics.host ?? this.config.http.host;
    const server = createServer((request, response) => void this.answer(request, response));
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error) => reject(new Error(`METRICS_PORT ${port}: ${error.message}`)));
      server.listen(port, host, () => resolve());
    });
    this.server = server;
    this.logger.log(`metrics on http://${host}:${port}/metrics`, { host, port });
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const cut = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
    await closed;
    clearTimeout(cut);
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const started = process.hrtime.bigint();
    const path = (request.url ?? '').split('?')[0];
    const route = path === '/metrics' ? '/metrics' : 'unmatched';
    response.once('close', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      this.metrics.httpServed(request.method ?? 'OTHER', route, response.writableFinished ? response.statusCode : undefined, seconds);
    });
    if (route === 'unmatched' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      // The API port's answer to a path no route matches.
      response.writeHead(404, { 'Content-Type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify({ code: FetCode.NotFound, title: 'Not Found', message: 'route not found' }));
      return;
    }
    try {
      const text = await this.metrics.registry.metrics();
      response.writeHead(200, { 'Content-Type': this.metrics.registry.contentType, 'Cache-Control': 'no-store' });
      response.end(request.method === 'HEAD' ? undefined : text);
    } catch (error) {
      this.logger.error(`metrics scrape failed: ${(error as Error).message}`);
      const { status, title } = FET_CATALOGUE[FetCode.Internal];
      response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify({ code: FetCode.Internal, title, message: 'the metrics could not be collected' }));
    }
  }
}
