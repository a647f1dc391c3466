import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadAppConfig } from '../../config/load-config.js';

const KEY = Buffer.alloc(32, 1).toString('base64');
const load = (env: Record<string, string>) =>
  loadAppConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'fetcher-otel-')), APP_ENC_KEY: KEY, ...env });

describe('tracing configuration', () => {
  it('is off without OTEL_EXPORTER_OTLP_ENDPOINT and names the service after the role', () => {
    expect(load({}).tracing).toEqual({ otlpEndpoint: undefined, serviceName: 'fetcher-all' });
    const worker = load({ FETCHER_ROLE: 'worker', DATABASE_URL: 'postgres://db/x', REDIS_URL: 'redis://r:6379' });
    expect(worker.tracing.serviceName).toBe('fetcher-worker');
  });

  it('reads the endpoint (a collector host without a dot included) and OTEL_SERVICE_NAME', () => {
    expect(load({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel_collector:4318', OTEL_SERVICE_NAME: 'fetcher-eu' }).tracing).toEqual({
      otlpEndpoint: 'http://otel_collector:4318',
      serviceName: 'fetcher-eu',
    });
    expect(load({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example.com/ingest' }).tracing.otlpEndpoint).toBe(
      'https://otel.example.com/ingest',
    );
  });

  it.each(['collector:4318', 'ftp://collector:21', 'http://', 'not a url'])(
    'refuses OTEL_EXPORTER_OTLP_ENDPOINT=%j at boot, naming the variable',
    (endpoint) => {
      expect(() => load({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint })).toThrow(ConfigError);
      expect(() => load({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint })).toThrow(
        /OTEL_EXPORTER_OTLP_ENDPOINT: must be an http:\/\/ or https:\/\/ URL/,
      );
    },
  );

  it('never echoes a refused endpoint, which may carry a token', () => {
    expect(() => load({ OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://collector:4317?token=s3cr3t' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('s3cr3t') }),
    );
  });
});
