/** Structured logs: one JSON object per line on stderr. Never pass tokens or passwords here. */
export interface Logger {
  /** Whether one line per request is written (false with --quiet): callers skip building it. */
  readonly logsRequests?: boolean;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export function jsonLogger(quiet = false): Logger {
  const write = (level: string, msg: string, fields?: Record<string, unknown>) => {
    // quiet: no per-request lines (start-up, warnings and errors are still written)
    if (quiet && msg === 'request') return;
    process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`);
  };
  return {
    logsRequests: !quiet,
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
  };
}
