import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

/**
 * Records the ES modules this process loads (minio, amqp-connection-manager and the Nest packages
 * load as ES modules, which the CommonJS cache does not list). The hooks run on their own thread and
 * report each URL over a port; a reply to `flush` arrives after every URL reported before it.
 */
const RECORD_ES_MODULES = `
  const { register } = await import('node:module');
  const { MessageChannel } = await import('node:worker_threads');
  const { port1, port2 } = new MessageChannel();
  const esModules = [];
  let flushed = () => {};
  port1.on('message', (url) => (url === null ? flushed() : esModules.push(url)));
  const hooks = \`let port;
    export function initialize(data) { port = data.port; port.on('message', () => port.postMessage(null)); }
    export async function load(url, context, next) { port.postMessage(url); return next(url, context); }\`;
  register('data:text/javascript,' + encodeURIComponent(hooks), { data: { port: port2 }, transferList: [port2] });
  const flush = () => new Promise((done) => { flushed = done; port1.postMessage('flush'); });`;

/** The files (CommonJS and ES modules) a fresh process has loaded once `script` (an ES module body) has run. */
export function modulesLoadedAfter(script: string): string[] {
  const source = `
    ${RECORD_ES_MODULES}
    ${script}
    await flush();
    const { createRequire } = await import('node:module');
    const { fileURLToPath } = await import('node:url');
    const files = esModules.filter((url) => url.startsWith('file:')).map((url) => fileURLToPath(url));
    console.log(JSON.stringify([...Object.keys(createRequire(import.meta.url).cache), ...files]));
    port1.close();`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', source], {
    cwd: root,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '' },
  });
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout.trim().split('\n').pop() as string) as string[];
}

/** The files a fresh process has loaded after importing `entry` from the build. */
export const modulesLoadedBy = (entry: string) => modulesLoadedAfter(`await import(${JSON.stringify(resolve(root, entry))});`);
