// `npm run openapi`: writes docs/openapi.json (the document the built app serves in the embedded
// mode) and src/client/openapi.ts (the client's types generated from it). Needs `npm run build` first;
// `npm run build` itself never needs a running app, because both outputs are committed.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DOCUMENT_FILE, ROOT, TYPES_FILE, formatDocument, generateClientTypes } from './openapi-generate.mjs';

const MAIN = join(ROOT, 'dist/main.js');

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** The built app on its own temporary data directory and an ephemeral port, with no .env and no inherited settings. */
async function startApp(dataDir) {
  const port = await freePort();
  // Only what the embedded defaults need: an inherited DATABASE_URL or AUTH_MODE would change the document.
  const env = { PATH: process.env.PATH ?? '', TZ: 'UTC', PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'error' };
  // cwd is the temporary directory so that no .env of the checkout is read.
  const child = spawn(process.execPath, [MAIN], { cwd: dataDir, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`dist/main.js exited with ${child.exitCode}:\n${stderr}`);
    const healthy = await fetch(`${url}/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) return { url, child };
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`dist/main.js did not answer /health within 60 s:\n${stderr}`);
    }
    await new Promise((done) => setTimeout(done, 200));
  }
}

function stop(child) {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      done();
    });
    child.kill('SIGTERM');
  });
}

async function main() {
  if (!existsSync(MAIN)) throw new Error('dist/main.js is missing: run `npm run build` first');
  const dataDir = mkdtempSync(join(tmpdir(), 'fetcher-openapi-'));
  try {
    const { url, child } = await startApp(dataDir);
    try {
      const response = await fetch(`${url}/swagger-json`);
      if (!response.ok) throw new Error(`GET /swagger-json answered ${response.status}`);
      const document = await response.json();
      await writeFile(DOCUMENT_FILE, await formatDocument(document));
      await writeFile(TYPES_FILE, await generateClientTypes(document));
      console.log('wrote docs/openapi.json and src/client/openapi.ts');
    } finally {
      await stop(child);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(`npm run openapi: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
