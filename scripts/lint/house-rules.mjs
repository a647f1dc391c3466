// The house rules of docs/architecture.md that no stock rule expresses, as an oxlint JS plugin
// (ESLint's rule API). `npm run lint` loads it from .oxlintrc.json; scripts/lint/house-rules.spec.ts
// plants a violation of each rule and checks that the lint fails on it.
import { dirname, relative, resolve, sep } from 'node:path';

/** `src/job/x.ts` → `job`; `src/app.module.ts` → `app.module`; undefined outside src/. */
function folderOf(srcRoot, file) {
  const rel = relative(srcRoot, file);
  if (rel.startsWith('..') || rel === '') return undefined;
  const first = rel.split(sep)[0];
  return first.endsWith('.ts') ? first.slice(0, -3) : first;
}

/**
 * Imports must point down the layers (or across one): `layers` lists them from the lowest, each a
 * list of the top-level folders (or root files) of src/ that share it.
 */
const layering = {
  meta: {
    type: 'problem',
    docs: { description: 'A folder of src/ imports only from its own layer or the ones below (docs/architecture.md, "Layers")' },
    schema: [{ type: 'object', properties: { layers: { type: 'array' } }, additionalProperties: false }],
  },
  create(context) {
    const layers = context.options[0]?.layers ?? [];
    const rank = new Map(layers.flatMap((names, index) => names.map((name) => [name, index])));
    const file = context.filename ?? context.getFilename();
    const srcRoot = resolve(context.cwd ?? process.cwd(), 'src');
    const from = folderOf(srcRoot, file);
    if (from === undefined || !rank.has(from)) return {};
    const check = (node, source) => {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const to = folderOf(srcRoot, resolve(dirname(file), source));
      if (to === undefined || to === from || !rank.has(to)) return;
      if (rank.get(to) > rank.get(from)) {
        context.report({
          node,
          message: `src/${from} may not import src/${to}: it is a higher layer (docs/architecture.md, "Layers"). Move what both need down, or invert the dependency with a port.`,
        });
      }
    };
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
    };
  },
};

/**
 * Time, ids and timers come from their ports (Clock, IdGenerator, Scheduler in src/common/clock/),
 * so that a spec can move a manual clock and read predictable ids; the ports' own files are exempt.
 */
const AMBIENT_UUID_VERSIONS = new Set(['v1', 'v4', 'v6', 'v7']);

const noAmbientEffects = {
  meta: {
    type: 'problem',
    docs: { description: 'Date.now(), new Date(), setInterval and uuid come from Clock, IdGenerator and Scheduler' },
    schema: [],
  },
  create(context) {
    return {
      MemberExpression(node) {
        if (node.object.type === 'Identifier' && node.object.name === 'Date' && !node.computed && node.property.name === 'now') {
          context.report({ node, message: 'Date.now: read the time from the injected Clock (clock.nowMs())' });
        }
      },
      NewExpression(node) {
        if (node.callee.type === 'Identifier' && node.callee.name === 'Date' && node.arguments.length === 0) {
          context.report({ node, message: 'new Date(): read the time from the injected Clock (clock.now())' });
        }
      },
      CallExpression(node) {
        if (node.callee.type === 'Identifier' && node.callee.name === 'setInterval') {
          context.report({ node, message: 'setInterval: repeat through the injected Scheduler (scheduler.repeat or scheduler.every)' });
        }
      },
      ImportDeclaration(node) {
        if (node.source.value !== 'uuid') return;
        // Time- or random-based versions; v5 (an id derived from a name) is a pure function.
        const ambient = node.specifiers.some(
          (specifier) => specifier.type === 'ImportSpecifier' && AMBIENT_UUID_VERSIONS.has(specifier.imported.name),
        );
        if (ambient) context.report({ node, message: 'uuid: new ids come from the injected IdGenerator (ids.orderedUuid(), ids.uuid())' });
      },
    };
  },
};

export default {
  meta: { name: 'house' },
  rules: { layering, 'no-ambient-effects': noAmbientEffects },
};
