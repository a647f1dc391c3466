import { FetCode } from '../../engine/errors/fet-code.js';
import { RequestValidationError } from '../errors/request-errors.js';

/** The shape ceilings of any JSON body (docs/request-limits.md); no route needs more. */
export const BODY_LIMITS = {
  /** Levels of objects and arrays; the body itself is level 1. */
  maxDepth: 32,
  /** Members of one object. */
  maxKeysPerObject: 1_000,
  /** Members of all objects of the body together (array elements are not counted). */
  maxKeysTotal: 50_000,
} as const;

/**
 * `__proto__` is the one member name refused everywhere: JSON.parse makes it an own property,
 * but any later assignment (`out[key] = value`, Object.assign, class-transformer) turns it
 * into a prototype change, so the member would silently disappear somewhere downstream.
 */
export const FORBIDDEN_MEMBER_NAME = '__proto__';

const SEGMENT_CHARS = 64;

interface Frame {
  readonly value: object;
  readonly depth: number;
  readonly parent: Frame | null;
  readonly key: string;
}

/**
 * Throws FET-0001 naming the offending member when the parsed body is not a JSON object, nests
 * deeper than BODY_LIMITS.maxDepth, has too many members or uses `__proto__`. Iterative: it
 * runs on bodies built to overflow the stack of the recursive steps after it.
 */
export function assertBodyWithinLimits(body: unknown): void {
  if (body === undefined) return;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw refused('body', 'must be a JSON object');
  }
  let total = 0;
  const stack: Frame[] = [{ value: body, depth: 1, parent: null, key: '' }];
  const visit = (parent: Frame, key: string, child: unknown) => {
    if (child === null || typeof child !== 'object') return;
    const frame: Frame = { value: child, depth: parent.depth + 1, parent, key };
    if (frame.depth > BODY_LIMITS.maxDepth) throw refused(pathOf(frame), `nests deeper than ${BODY_LIMITS.maxDepth} levels`);
    stack.push(frame);
  };
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    const { value } = frame;
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index += 1) visit(frame, String(index), value[index]);
      continue;
    }
    const keys = Object.keys(value);
    if (keys.length > BODY_LIMITS.maxKeysPerObject) {
      throw refused(pathOf(frame), `has ${keys.length} members; at most ${BODY_LIMITS.maxKeysPerObject} are allowed in one object`);
    }
    total += keys.length;
    if (total > BODY_LIMITS.maxKeysTotal) throw refused('body', `has more than ${BODY_LIMITS.maxKeysTotal} object members in all`);
    for (const key of keys) {
      if (key === FORBIDDEN_MEMBER_NAME) throw refused(pathOf(frame, key), `'${FORBIDDEN_MEMBER_NAME}' is not allowed as a member name`);
      visit(frame, key, (value as Record<string, unknown>)[key]);
    }
  }
}

function refused(path: string, problem: string): RequestValidationError {
  const message = `${path === 'body' ? 'the request body' : path} ${problem}`;
  return new RequestValidationError(FetCode.BadRequest, message, { fields: { [path]: message } });
}

/** `dataRequest.filters.pg.t.id.in.3`; long names are cut so the answer stays small. */
function pathOf(frame: Frame, last?: string): string {
  const segments: string[] = last === undefined ? [] : [last];
  for (let at: Frame | null = frame; at !== null && at.parent !== null; at = at.parent) segments.push(at.key);
  if (segments.length === 0) return 'body';
  return segments
    .reverse()
    .map((segment) => (segment.length > SEGMENT_CHARS ? `${segment.slice(0, SEGMENT_CHARS)}…` : segment))
    .join('.');
}
