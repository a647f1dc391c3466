// Opens a stored result object as a stream and checks it against what the job reported, without
// ever holding the result in memory: base64 text → nonce ‖ AES-256-GCM ciphertext ‖ tag (the
// format ResultSealer writes) → plaintext, hashed (SHA-256 and HMAC) and scanned for rows on the
// way. dist/storage/result-codec/result-opener.js opens the same format but reads the whole
// object at once, so only the service's key handling is reused here: the development key from
// DATA_DIR through the CLI's config loader, and the key version the job says it was sealed with.
import { createDecipheriv, createHash, createHmac } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { join } from 'node:path';

const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const ROW_MARK = Buffer.from('{"id":');

/** The derived result keys of the Fetcher whose DATA_DIR is `dataDir`, for `keyVersion`. */
export async function resultKeys(env, keyVersion) {
  const { loadConfigWithExistingKey } = await import('../../dist/cli/cli-config.js');
  const { keyringCandidates } = await import('../../dist/cli/result-key-candidates.js');
  const config = loadConfigWithExistingKey(env);
  const [candidate] = keyringCandidates(config, keyVersion);
  return { keys: candidate.keys, resultsDir: config.storage.resultsDir };
}

/** Counts occurrences of `mark` across chunk boundaries. */
class MarkCounter {
  constructor(mark) {
    this.mark = mark;
    this.tail = Buffer.alloc(0);
    this.count = 0;
  }

  push(chunk) {
    const data = this.tail.length === 0 ? chunk : Buffer.concat([this.tail, chunk]);
    for (let at = data.indexOf(this.mark); at >= 0; at = data.indexOf(this.mark, at + this.mark.length)) this.count += 1;
    // Keep fewer bytes than the mark so a match is never counted twice.
    this.tail = Buffer.from(data.subarray(Math.max(0, data.length - (this.mark.length - 1))));
  }
}

/**
 * Streams `file` through decryption. Returns { ok, problems, plaintextBytes, storedBytes, sha256,
 * hmac, rows, seconds }; `expected` may hold sizeBytes, sha256, hmac and rows to compare with.
 */
export async function verifyStoredResult(file, keys, expected = {}) {
  const started = process.hrtime.bigint();
  const problems = [];
  const storedBytes = statSync(file).size;
  const sha256 = createHash('sha256');
  const hmac = createHmac('sha256', keys.hmacKey);
  const rows = new MarkCounter(ROW_MARK);
  let plaintextBytes = 0;
  const plain = (chunk) => {
    if (chunk.length === 0) return;
    plaintextBytes += chunk.length;
    sha256.update(chunk);
    hmac.update(chunk);
    rows.push(chunk);
  };

  let text = ''; // base64 characters not yet decoded (fewer than 4 between chunks)
  let head = Buffer.alloc(0); // the nonce, while it is being gathered
  let held = Buffer.alloc(0); // the last bytes seen, one of which may be the tag
  let decipher;
  let malformed = false;
  const bytes = (chunk) => {
    let data = chunk;
    if (!decipher) {
      head = Buffer.concat([head, data]);
      if (head.length < NONCE_BYTES) return;
      decipher = createDecipheriv('aes-256-gcm', keys.encryptionKey, head.subarray(0, NONCE_BYTES));
      data = head.subarray(NONCE_BYTES);
      head = Buffer.alloc(0);
    }
    const joined = held.length === 0 ? data : Buffer.concat([held, data]);
    if (joined.length <= TAG_BYTES) {
      held = Buffer.from(joined);
      return;
    }
    plain(decipher.update(joined.subarray(0, joined.length - TAG_BYTES)));
    held = Buffer.from(joined.subarray(joined.length - TAG_BYTES));
  };

  for await (const chunk of createReadStream(file, { highWaterMark: 1024 * 1024, encoding: 'latin1' })) {
    const all = text + chunk;
    const whole = all.length - (all.length % 4);
    const slice = all.slice(0, whole);
    if (!/^[A-Za-z0-9+/]*={0,2}\s*$/.test(slice)) malformed = true;
    bytes(Buffer.from(slice, 'base64'));
    text = all.slice(whole);
  }
  text = text.trimEnd();
  if (text.length > 0) {
    if (text.length % 4 !== 0) malformed = true;
    bytes(Buffer.from(text, 'base64'));
  }

  let authentic = false;
  if (malformed) problems.push('the object is not standard base64 text');
  if (!decipher || held.length < TAG_BYTES) {
    problems.push(`the object is too short to be sealed (${storedBytes} bytes stored)`);
  } else {
    decipher.setAuthTag(held);
    try {
      plain(decipher.final());
      authentic = true;
    } catch {
      problems.push('the object failed GCM authentication (modified, or sealed with another key)');
    }
  }
  const result = {
    plaintextBytes,
    storedBytes,
    sha256: sha256.digest('hex'),
    hmac: hmac.digest('hex'),
    rows: rows.count,
    authentic,
  };
  if (expected.sizeBytes !== undefined && expected.sizeBytes !== result.plaintextBytes) {
    problems.push(`size: job says ${expected.sizeBytes} bytes, the object holds ${result.plaintextBytes}`);
  }
  if (expected.sha256 !== undefined && expected.sha256.toLowerCase() !== result.sha256) {
    problems.push(`SHA-256: job says ${expected.sha256}, the object hashes to ${result.sha256}`);
  }
  if (expected.hmac !== undefined && expected.hmac.toLowerCase() !== result.hmac) {
    problems.push(`HMAC: job says ${expected.hmac}, computed ${result.hmac}`);
  }
  if (expected.rows !== undefined && expected.rows !== result.rows) {
    problems.push(`rows: expected ${expected.rows}, the object holds ${result.rows} {"id": objects`);
  }
  return { ok: problems.length === 0, problems, ...result, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
}

/** Where a local store keeps `resultPath`. */
export function objectFile(resultsDir, resultPath) {
  return join(resultsDir, resultPath);
}

/** `csv+gzip` → { format: 'csv', compression: 'gzip' }. */
export function outputBody(output) {
  const [format, compression = 'none'] = output.split('+');
  return { format, compression };
}

/** Plaintext bytes of the result: the document, or every part (the manifest aside). */
export const resultBytes = (job) =>
  job.result?.parts ? job.result.parts.reduce((sum, part) => sum + part.sizeBytes, 0) : job.result?.sizeBytes;

/** Verifies the stored result of `job` (its manifest and every part, for a per-table one) as the job describes it. */
export async function verifyJobResult(job, env, expectedRows) {
  const { keys, resultsDir } = await resultKeys(env, job.resultKeyVersion);
  const file = objectFile(resultsDir, job.resultPath);
  const parts = job.result.parts;
  const document = await verifyStoredResult(file, keys, {
    sizeBytes: job.result.sizeBytes,
    sha256: job.result.sha256,
    hmac: job.resultHmac,
    ...(parts ? {} : { rows: expectedRows }),
  });
  if (!parts) return document;
  // A per-table result: the manifest above, then every part against what the job lists for it.
  const problems = [...document.problems];
  let seconds = document.seconds;
  for (const part of parts) {
    const checked = await verifyStoredResult(objectFile(resultsDir, part.path), keys, {
      sizeBytes: part.sizeBytes,
      sha256: part.sha256,
      hmac: part.hmac,
    });
    seconds += checked.seconds;
    problems.push(...checked.problems.map((problem) => `${part.path}: ${problem}`));
  }
  const rows = parts.reduce((sum, part) => sum + part.rowCount, 0);
  if (rows !== expectedRows) problems.push(`rows: the parts list ${rows}, expected ${expectedRows}`);
  return { ok: problems.length === 0, problems, rows, seconds };
}
