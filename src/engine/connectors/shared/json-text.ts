import { NEEDS_JSON_ESCAPE, plainTextEncoder } from './row-batch-renderer.js';

/*
 * JSON text of values, shared by every connector's value encoders (json-bytes.ts writes the same
 * text straight from wire bytes). Each function is called per value: no allocation beyond the
 * text it returns.
 */

/** Text that needs no escaping (digits, dates, base64…) as a JSON string. */
export const quoted = (text: string): string => '"' + text + '"';

/**
 * Any text as a JSON string. Most values need no escaping, and a regex test plus concatenation
 * is cheaper than JSON.stringify; the rest (quotes, backslashes, control characters) goes
 * through JSON.stringify. Non-ASCII is kept as is (the result is UTF-8).
 */
export const jsonString = plainTextEncoder((text: string): string =>
  NEEDS_JSON_ESCAPE.test(text) ? JSON.stringify(text) : '"' + text + '"',
);

/** Numbers as JSON numbers; JSON has no NaN or infinities, so those become strings. */
export const jsonNumber = (n: number): string => (Number.isFinite(n) ? String(n) : quoted(String(n)));

/** The shortest decimal text that reads back as the same single-precision value (a float the driver widened to a double). */
export function float32Text(value: number): string {
  if (!Number.isFinite(value)) return quoted(String(value));
  const f = Math.fround(value);
  for (let digits = 1; digits < 9; digits++) {
    const candidate = Number(f.toPrecision(digits));
    if (Math.fround(candidate) === f) return String(candidate);
  }
  return String(Number(f.toPrecision(9)));
}

/** An instant as ISO text; an invalid Date (a value beyond JS's range) has no text and is null. */
export const jsonDate = (date: Date): string => (Number.isNaN(date.getTime()) ? 'null' : quoted(date.toISOString()));

export const base64String = (bytes: Buffer): string => quoted(bytes.toString('base64'));

/** `YYYY-MM-DD HH:MM:SS[.f…]` → ISO `T` separator; other text unchanged. */
export const isoDateTime = (text: string): string =>
  text.length > 10 && text.charCodeAt(10) === 32 ? text.slice(0, 10) + 'T' + text.slice(11) : text;

/**
 * JSON text embedded as JSON, compacted by dropping whitespace outside strings. Numbers are
 * copied as written, never parsed, so `12345678901234567890` keeps its digits.
 */
export function compactJson(text: string): string {
  let out = '';
  let start = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 92 /* \ */) i++;
        else if (d === 34) break;
      }
    } else if (c === 32 || c === 10 || c === 13 || c === 9) {
      out += text.slice(start, i);
      start = i + 1;
    }
  }
  return start === 0 ? text : out + text.slice(start);
}

function isValidJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * JSON text the server does not guarantee valid: one invalid document embedded as is would
 * corrupt the whole result, so it is validated, and an invalid one is kept as a string.
 */
export const checkedJson = (text: string): string => (isValidJson(text) ? compactJson(text) : jsonString(text));
