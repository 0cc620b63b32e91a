/** A CSV field (RFC 4180): quoted when it holds a quote, comma or line break, its quotes doubled. */
export function csvField(v: string): string {
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}
