/** The parameter types this connector binds (mssql `NVarChar(MAX)`, `Bit`, `Float`, `VarBinary(MAX)`). */
export type SqlParamType = 'nvarchar' | 'bit' | 'float' | 'varbinary';

/** One `@pN` parameter, always declared with its type (never inferred by the driver). */
export interface SqlParam {
  readonly name: string;
  readonly type: SqlParamType;
  readonly value: string | number | boolean | Buffer | null;
}

/** How one value is bound: the parameter, and the CAST that makes it compare as the column's type. */
export interface SqlBinding {
  readonly type: SqlParamType;
  readonly value: SqlParam['value'];
  readonly cast?: string;
}
