/**
 * Accumulates SQL text and the values bound in it. Each value gets a placeholder, written by the
 * engine (`placeholderAt` of its 1-based position), which the caller may append or build into a
 * larger expression first; the values are kept in binding order.
 */
export class SqlBuilder<V> {
  protected text = '';
  protected readonly values: V[] = [];

  constructor(private readonly placeholderAt: (position: number) => string) {}

  append(sql: string): this {
    this.text += sql;
    return this;
  }

  /** Values bound so far. */
  get bindCount(): number {
    return this.values.length;
  }

  /** Binds `value` and returns its placeholder, without appending it. */
  placeholder(value: V): string {
    this.values.push(value);
    return this.placeholderAt(this.values.length);
  }

  /** Binds `value` and appends its placeholder. */
  bind(value: V): this {
    return this.append(this.placeholder(value));
  }
}
