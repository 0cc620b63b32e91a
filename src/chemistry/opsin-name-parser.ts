import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { HttpError } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import { nameTextProblem } from './structure-limits.ts';

/** Where Debian's libopsin-java puts OPSIN's command line (its manifest names the jars it needs). */
export const DEBIAN_OPSIN_JAR = '/usr/share/java/opsin.jar';
/** Names waiting for OPSIN at most, every request's together; one more is refused with 503. */
export const OPSIN_QUEUE_MAX = 4096;
/** How long OPSIN may take over one name, once it has answered a first one. */
export const OPSIN_NAME_TIMEOUT_MS = 10_000;
/** How long a fresh JVM may take to load OPSIN and answer its first name. */
export const OPSIN_START_TIMEOUT_MS = 60_000;
/** OPSIN is stopped after this long with nothing to do (started again by the next name). */
export const OPSIN_IDLE_MS = 5 * 60_000;
/** Starts in a row that end before OPSIN answers anything, after which it is taken as unusable here. */
const FAILED_STARTS_MAX = 3;
/** How long OPSIN stays unusable after failed starts (not when Java or the jar is missing): then it is tried again. */
export const OPSIN_RETRY_AFTER_MS = 5 * 60_000;
/** Characters of OPSIN's error output kept to say why it did not start. */
const STDERR_KEPT = 2_000;

/** What a name OPSIN reads but cannot parse answers. */
export const CANNOT_PARSE = 'OPSIN cannot parse it';

/** OPSIN's parse of a name: a SMILES, or why there is none. */
export type NameParse = { smiles: string } | { error: string };

interface Waiting {
  name: string;
  answer: (parse: NameParse) => void;
  /** A name of the parser's own (CANARY), asked first after a failed start. */
  canary?: boolean;
}

/** A name OPSIN always parses: a process that answers it works, so what stops it next is the name it was given. */
const CANARY = 'methane';

export interface OpsinOptions {
  jar: string;
  log: Logger;
  /** The java to run: JAVA_HOME's, else the first on PATH. */
  java?: string;
}

/**
 * OPSIN (Debian's libopsin-java) as one long-lived process that reads names on its standard
 * input, one a line, and writes for each a line `SMILES<tab>name` (`-osmi -n`; the SMILES is empty
 * when it cannot parse the name). Names are written as they come and answered in order; every
 * answer must echo its name, so the two sides cannot drift apart (a name that could break a line
 * is refused before it is written). The process starts with the first name, stops when idle, and
 * is started again when it stops, hangs over one name (that name fails) or answers out of turn;
 * the names written to the old one are written to the new one. Without Java or the jar, or when
 * it fails to start FAILED_STARTS_MAX times in a row, it is unavailable, said once in the log.
 */
export class OpsinNameParser {
  private readonly queue: Waiting[] = [];
  private child?: ChildProcessWithoutNullStreams;
  /** Has the running process answered a name yet (its start is over)? */
  private answered = false;
  private failedStarts = 0;
  private stdout = '';
  private stderr = '';
  private watchdog?: NodeJS.Timeout;
  private idle?: NodeJS.Timeout;
  private why?: string;
  /** When a failed OPSIN is tried again (undefined: never, Java or the jar is missing). */
  private retryAt?: number;
  /**
   * After a start that ended before any answer, the next process is asked CANARY first and then
   * the first waiting name alone: when the canary is answered and that name stops OPSIN, the name
   * is the cause and fails by itself (instead of taking OPSIN down for everyone); when not even
   * the canary is answered, the start failed.
   */
  private probing = false;
  private closed = false;
  /** The java that runs OPSIN (undefined: none found). */
  readonly java?: string;
  private readonly options: OpsinOptions;

  constructor(options: OpsinOptions) {
    this.options = options;
    this.java = options.java ?? findJava();
    if (!this.java) this.disable('Java is not installed (no java in JAVA_HOME or on PATH)', true);
    else if (!readable(options.jar)) this.disable(`the OPSIN jar ${options.jar} is missing (install Debian's libopsin-java, or give --opsin-jar)`, true);
  }

  /** Why names cannot be parsed here; undefined while OPSIN is usable (or may be tried again). */
  get unavailable(): string | undefined {
    if (this.why && this.retryAt !== undefined && Date.now() >= this.retryAt) {
      this.why = undefined;
      this.failedStarts = 0;
    }
    return this.why;
  }

  /** The OPSIN process's id while one runs. */
  get processId(): number | undefined {
    return this.child?.pid;
  }

  /** Names waiting for OPSIN now. */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * OPSIN's SMILES of each name, in order. A name that cannot reach OPSIN (too long, a control
   * character), that OPSIN cannot parse or took too long over, answers why. 503 when the queue is
   * full or the parser is stopping; the caller checks `unavailable` first.
   */
  parse(names: string[]): Promise<NameParse[]> {
    if (this.closed) throw new HttpError(503, 'ServiceUnavailable', 'the name parser is stopping; try again shortly', undefined, { 'Retry-After': '1' });
    if (this.queue.length + names.length > OPSIN_QUEUE_MAX) {
      throw new HttpError(503, 'ServiceUnavailable', `${this.queue.length} chemical names are waiting for OPSIN already; try again shortly`, undefined, { 'Retry-After': '2' });
    }
    return Promise.all(
      names.map((name) => {
        const problem = nameTextProblem(name, 'the name');
        if (problem) return { error: problem };
        if (this.unavailable) return { error: `systematic names cannot be parsed here: ${this.why}` };
        return new Promise<NameParse>((answer) => this.enqueue({ name, answer }));
      }),
    );
  }

  /** Stop the process; names still waiting answer 503's words. */
  close(): void {
    this.closed = true;
    this.stop();
    clearTimeout(this.idle);
    for (const w of this.queue.splice(0)) w.answer({ error: 'the name parser stopped' });
  }

  private enqueue(w: Waiting): void {
    clearTimeout(this.idle);
    this.queue.push(w);
    if (!this.child) this.start();
    // a probing process is given its names once the probe's is answered
    else if (!this.probing) this.write(w.name);
    if (this.queue.length === 1) this.arm();
  }

  private start(): void {
    const child = spawn(this.java!, ['-Dfile.encoding=UTF-8', '-Dsun.stdout.encoding=UTF-8', '-Dstdout.encoding=UTF-8', '-XX:+UseSerialGC', '-Xmx512m', '-jar', this.options.jar, '-osmi', '-n'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child = child;
    this.answered = false;
    this.stdout = '';
    this.stderr = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (text: string) => child === this.child && this.read(text));
    // read always: a full pipe would stop OPSIN, which writes a line there for each name it cannot parse
    child.stderr.on('data', (text: string) => {
      if (child === this.child) this.stderr = (this.stderr + text).slice(-STDERR_KEPT);
    });
    child.stdin.on('error', () => undefined);
    child.on('error', (e) => child === this.child && this.fault(`java could not be run: ${e.message}`, (e as NodeJS.ErrnoException).code === 'ENOENT'));
    child.on('exit', (code, signal) => child === this.child && this.fault(`OPSIN stopped (${signal ?? `exit code ${code}`})`));
    if (this.probing) this.queue.unshift({ name: CANARY, answer: () => undefined, canary: true });
    for (const w of this.probing ? this.queue.slice(0, 2) : this.queue) this.write(w.name);
  }

  private write(name: string): void {
    this.child!.stdin.write(`${name}\n`);
  }

  private read(text: string): void {
    this.stdout += text;
    let end = this.stdout.indexOf('\n');
    while (end >= 0) {
      const line = this.stdout.slice(0, end).replace(/\r$/, '');
      this.stdout = this.stdout.slice(end + 1);
      const tab = line.indexOf('\t');
      const head = this.queue[0];
      // an answer for no name, or for another name than the first waiting: the two sides drifted apart
      if (!head || tab < 0 || line.slice(tab + 1) !== head.name) {
        this.fault('OPSIN answered out of turn');
        return;
      }
      this.queue.shift();
      this.answered = true;
      this.failedStarts = 0;
      const smiles = line.slice(0, tab).trim();
      head.answer(smiles ? { smiles } : { error: CANNOT_PARSE });
      // the probe's name answered: the names behind it go to this process too
      if (this.probing && !head.canary) {
        this.probing = false;
        for (const w of this.queue) this.write(w.name);
      }
      end = this.stdout.indexOf('\n');
    }
    this.arm();
  }

  /** The watchdog over the first waiting name, or the idle timer when none waits. */
  private arm(): void {
    clearTimeout(this.watchdog);
    clearTimeout(this.idle);
    if (this.queue.length) {
      const ms = this.answered ? OPSIN_NAME_TIMEOUT_MS : OPSIN_START_TIMEOUT_MS;
      this.watchdog = setTimeout(() => this.fault(`OPSIN took more than ${ms / 1000} s`), ms);
      this.watchdog.unref();
    } else if (this.child) {
      this.idle = setTimeout(() => this.stop(), OPSIN_IDLE_MS);
      this.idle.unref();
    }
  }

  /**
   * The process stopped, hung or drifted. After it had answered (the canary, or a name), the first
   * waiting name is the likely cause and fails. Before, it failed to start, or its first name
   * stopped it: the next process probes (see `probing`). The other names go to a fresh process;
   * FAILED_STARTS_MAX starts in a row without an answer make OPSIN unusable for a while.
   */
  private fault(why: string, fatal = false): void {
    const started = this.answered;
    this.stop();
    // a canary never answered: this start failed
    if (this.queue[0]?.canary) this.queue.shift();
    const said = this.stderr.trim().split('\n').at(-1);
    if (fatal) {
      this.disable(`${why}${said ? `: ${said}` : ''}`, true);
      return;
    }
    if (started) {
      this.probing = false;
      this.queue.shift()?.answer({ error: `OPSIN failed on it: ${why}` });
    } else if (++this.failedStarts >= FAILED_STARTS_MAX) {
      this.disable(`${why}${said ? `: ${said}` : ''}`, false);
      return;
    } else this.probing = true;
    if (this.queue.length && !this.closed) {
      this.start();
      this.arm();
    }
  }

  private stop(): void {
    clearTimeout(this.watchdog);
    const child = this.child;
    this.child = undefined;
    child?.kill('SIGKILL');
  }

  private disable(why: string, permanent: boolean): void {
    this.why = why;
    this.probing = false;
    this.retryAt = permanent ? undefined : Date.now() + OPSIN_RETRY_AFTER_MS;
    this.options.log.warn(`chemical names cannot be parsed to structures: ${why}; names already held by compounds are still found`, { opsinJar: this.options.jar });
    for (const w of this.queue.splice(0)) w.answer({ error: `systematic names cannot be parsed here: ${why}` });
  }
}

/** JAVA_HOME's java, else the first java on PATH. */
function findJava(): string | undefined {
  const home = process.env.JAVA_HOME;
  const candidates = [
    ...(home ? [join(home, 'bin', 'java')] : []),
    ...(process.env.PATH ?? '')
      .split(delimiter)
      .filter(Boolean)
      .map((dir) => join(dir, 'java')),
  ];
  return candidates.find((path) => executable(path));
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function readable(path: string): boolean {
  try {
    accessSync(path, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}
