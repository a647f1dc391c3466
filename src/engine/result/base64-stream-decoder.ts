const EMPTY = Buffer.alloc(0);
const EQUALS = 0x3d;
/** The first character that is not in the standard alphabet (padding and whitespace included). */
const FOREIGN = /[^A-Za-z0-9+/]/;

/** Thrown for anything that is not one standard base64 text; the caller decides what to call it. */
export class MalformedBase64Error extends Error {
  constructor() {
    super('result object is not standard base64 text');
  }
}

/**
 * Decodes one standard base64 text that arrives in chunks cut anywhere, as strictly as
 * decodeBase64 in result-opener.ts decodes a whole object: only the standard alphabet, padding only
 * in the last group, and nothing after it but trailing `\n`, `\r` and spaces (what a download tool
 * or an editor may add). Node's own decoder skips foreign characters silently; this refuses them.
 *
 * The 0–3 characters of a group cut by a chunk boundary are carried into the next chunk, so each
 * chunk decodes on its own and nothing else is kept.
 */
export class Base64StreamDecoder {
  private carry = '';
  /** Once padding or whitespace was seen, only more of it may follow. */
  private inTail = false;
  private padding = 0;
  private sawWhitespace = false;

  /** The bytes of every complete group seen so far and not returned yet. */
  write(chunk: Buffer): Buffer {
    if (this.inTail) {
      this.checkTail(chunk, 0);
      return EMPTY;
    }
    const text = chunk.toString('latin1');
    const stop = text.search(FOREIGN);
    if (stop !== -1) {
      this.inTail = true;
      this.checkTail(chunk, stop);
    }
    return this.decodeGroups(stop === -1 ? text : text.slice(0, stop));
  }

  /** The last group's bytes; throws when the text ended inside a group or was padded wrongly. */
  end(): Buffer {
    const rest = this.carry;
    const complete =
      (rest.length === 0 && this.padding === 0) || (rest.length === 2 && this.padding === 2) || (rest.length === 3 && this.padding === 1);
    if (!complete) throw new MalformedBase64Error();
    this.carry = '';
    return rest.length === 0 ? EMPTY : Buffer.from(`${rest}${'='.repeat(this.padding)}`, 'base64');
  }

  private decodeGroups(text: string): Buffer {
    const joined = this.carry + text;
    const whole = joined.length - (joined.length % 4);
    this.carry = joined.slice(whole);
    return whole === 0 ? EMPTY : Buffer.from(joined.slice(0, whole), 'base64');
  }

  private checkTail(chunk: Buffer, from: number): void {
    for (let i = from; i < chunk.length; i += 1) {
      const c = chunk[i] as number;
      if (c === EQUALS && !this.sawWhitespace && this.padding < 2) this.padding += 1;
      else if (c === 0x0a || c === 0x0d || c === 0x20) this.sawWhitespace = true;
      else throw new MalformedBase64Error();
    }
  }
}
