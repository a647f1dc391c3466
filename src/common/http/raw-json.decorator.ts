import { Transform } from 'class-transformer';

/**
 * Member names class-transformer cannot take: it never copies `constructor`, and an object
 * owning one breaks its type guess (`value.constructor`) with a TypeError.
 */
const PROTOTYPE_NAMES: ReadonlySet<string> = new Set(['constructor', 'prototype']);

/** A copy handed to class-transformer → the parsed object it was made from. */
const originals = new WeakMap<object, object>();

/**
 * Keeps a free-form JSON member (a map of datasources, tables, filters; metadata) exactly as
 * parsed. class-transformer rebuilds plain objects key by key and skips every key that names a
 * function on the new object (`constructor`, `toString`, `hasOwnProperty`…), so a table or a
 * filter of that name would silently vanish.
 */
export function RawJson(): PropertyDecorator {
  return Transform(({ obj, key }) => ((originals.get(obj as object) ?? obj) as Record<string, unknown>)[key], { toClassOnly: true });
}

/**
 * The body class-transformer may see: the parsed body itself, or, when some object in it owns
 * a `constructor` or `prototype` member, a copy without those members whose objects remember
 * their originals, so `@RawJson()` members still come out as parsed. Iterative; the
 * body-limits guard bounded the body before.
 */
export function transformableBody(body: unknown): unknown {
  if (!ownsPrototypeName(body)) return body;
  const root = copyShell(body as object);
  const stack: Array<readonly [source: object, copy: object]> = [[body as object, root]];
  for (let pair = stack.pop(); pair !== undefined; pair = stack.pop()) {
    const [source, copy] = pair;
    originals.set(copy, source);
    for (const [key, value] of Object.entries(source)) {
      if (!Array.isArray(source) && PROTOTYPE_NAMES.has(key)) continue;
      let child = value;
      if (value !== null && typeof value === 'object') {
        child = copyShell(value);
        stack.push([value, child as object]);
      }
      Object.defineProperty(copy, key, { value: child, enumerable: true, writable: true, configurable: true });
    }
  }
  return root;
}

function copyShell(value: object): object {
  return Array.isArray(value) ? new Array<unknown>(value.length) : {};
}

function ownsPrototypeName(body: unknown): boolean {
  const stack: unknown[] = [body];
  for (let value = stack.pop(); value !== undefined; value = stack.pop()) {
    if (value === null || typeof value !== 'object') continue;
    if (!Array.isArray(value) && Object.keys(value).some((key) => PROTOTYPE_NAMES.has(key))) return true;
    for (const child of Object.values(value)) if (child !== null && typeof child === 'object') stack.push(child);
  }
  return false;
}
