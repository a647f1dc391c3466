import { ApiProperty, ApiPropertyOptional } from '../../common/http/api-docs.js';

export class HealthDto {
  @ApiProperty({ enum: ['healthy'], example: 'healthy' }) status!: 'healthy';
}

export class VersionDto {
  @ApiProperty({ example: '0.1.0', description: 'APP_VERSION, or the package version.' }) version!: string;
  @ApiProperty({ format: 'date-time', example: '2026-07-13T09:30:00.000Z', description: 'When this answer was made.' })
  requestDate!: string;
}

export class DependencyCheckDto {
  @ApiProperty({ enum: ['up', 'down'], example: 'up' }) status!: 'up' | 'down';
  @ApiProperty({ example: 3, description: 'Milliseconds the probe took (at most about 2000: a probe gives up then).' })
  latencyMs!: number;
  @ApiPropertyOptional({ example: 'postgres', description: 'Operator credential only: the adapter behind the dependency.' })
  kind?: string;
  @ApiPropertyOptional({
    example: 'connect ECONNREFUSED 127.0.0.1:6379',
    description: 'Operator credential only, and only when down: the driver’s message.',
  })
  error?: string;
}

export class ReadinessDto {
  @ApiProperty({ enum: ['ready', 'unready', 'draining'], example: 'ready', description: 'HTTP 200 only when ready.' })
  status!: 'ready' | 'unready' | 'draining';
  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: '#/components/schemas/DependencyCheckDto' },
    description: 'database, queue and storage always; redis and broker when configured.',
    example: { database: { status: 'up', latencyMs: 2 }, queue: { status: 'up', latencyMs: 1 }, storage: { status: 'up', latencyMs: 4 } },
  })
  checks!: Record<string, DependencyCheckDto>;
  @ApiProperty({ enum: ['manager', 'worker', 'all'], example: 'all', description: 'FETCHER_ROLE of this process.' }) role!: string;
}

const up = (latencyMs: number, kind: string) => ({ status: 'up', latencyMs, kind });

/** Named examples of GET /readyz: a caller without an operator credential sees status and latency only. */
export const READY_EXAMPLES = {
  anonymous: {
    summary: 'Ready, as anyone sees it',
    value: {
      status: 'ready',
      checks: { database: { status: 'up', latencyMs: 2 }, queue: { status: 'up', latencyMs: 1 }, storage: { status: 'up', latencyMs: 4 } },
      role: 'all',
    },
  },
  operator: {
    summary: 'Ready, with an operator credential: kind of each dependency',
    value: {
      status: 'ready',
      checks: { database: up(2, 'postgres'), queue: up(1, 'bullmq'), storage: up(4, 's3'), redis: up(1, 'redis') },
      role: 'manager',
    },
  },
};

export const UNREADY_EXAMPLES = {
  anonymous: {
    summary: 'A dependency is down, as anyone sees it',
    value: {
      status: 'unready',
      checks: {
        database: { status: 'up', latencyMs: 2 },
        queue: { status: 'down', latencyMs: 2001 },
        storage: { status: 'up', latencyMs: 4 },
      },
      role: 'all',
    },
  },
  operator: {
    summary: 'A dependency is down, with an operator credential: kind and error',
    value: {
      status: 'unready',
      checks: {
        database: up(2, 'postgres'),
        queue: { status: 'down', latencyMs: 3, kind: 'bullmq', error: 'connect ECONNREFUSED 127.0.0.1:6379' },
        storage: up(4, 's3'),
        redis: { status: 'down', latencyMs: 2, kind: 'redis', error: 'connect ECONNREFUSED 127.0.0.1:6379' },
      },
      role: 'manager',
    },
  },
  draining: {
    summary: 'Shutting down (SIGTERM): draining, whatever the dependencies say',
    value: {
      status: 'draining',
      checks: { database: { status: 'up', latencyMs: 2 }, queue: { status: 'up', latencyMs: 1 }, storage: { status: 'up', latencyMs: 4 } },
      role: 'all',
    },
  },
};
