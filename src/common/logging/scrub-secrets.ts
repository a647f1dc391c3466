/** `scheme://user:password@` in a URL: the password goes, the rest stays readable. */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s:@/]*):([^\s@/]+)@/gi;
/** `password=…` / `pwd=…` in a connection string (SQL Server, ODBC, libpq keyword form). */
const PASSWORD_PAIR = /\b(password|pwd)(\s*=\s*)('[^']*'|"[^"]*"|[^\s;,]+)/gi;

/**
 * Masks credentials written in the usual connection-string shapes. A safety net for text we do
 * not control (a driver's or a library's message): our own messages never carry a secret at all.
 */
export function scrubSecrets(text: string): string {
  if (!text.includes('@') && !/p(?:ass)?w(?:or)?d/i.test(text)) return text;
  return text.replace(URL_CREDENTIALS, '$1$2:***@').replace(PASSWORD_PAIR, '$1$2***');
}
