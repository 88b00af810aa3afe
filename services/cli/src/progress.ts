/**
 * The one progress display of every long command (memories import and export, backfill-integrity,
 * reembed), built on cli-progress. On a terminal (stderr is a TTY) it draws a bar, redrawn at most
 * ten times a second: `label [#####.....] 50% 150/300 detail` when the total is known, a counter
 * `label 150 rows detail` otherwise. Elsewhere (a log file, CI, a pipe) it writes no control
 * characters at all: one plain line per tenth of the work (`label: 50% 150/300 detail`), or one line
 * every ten seconds when the total is unknown, so logs stay short and readable.
 * Lines a command prints while the bar is up go through log(), which writes them above the bar.
 */
import cliProgress from 'cli-progress';

export interface Progress {
  /** done units of work so far, and a short text after the numbers. */
  update(done: number, detail?: string): void;
  /** One line of output (without the newline) that must not be overdrawn by the bar. */
  log(line: string): void;
  /** Draws the final state and leaves the cursor on a fresh line. Idempotent. */
  stop(): void;
}

export interface ProgressOptions {
  /** Printed first on every bar and line, e.g. `import`. */
  readonly label: string;
  /** Units of work in all; undefined when it cannot be known up front (a counter then). */
  readonly total?: number | undefined;
  /** What is counted, for the counter: `rows`, `memories`. */
  readonly unit?: string;
  /** Default process.stderr. */
  readonly stream?: NodeJS.WriteStream;
  /** Show the bar even on a terminal? Default true (a command whose stdout is the terminal passes false). */
  readonly interactive?: boolean;
}

const PLAIN_INTERVAL_MS = 10_000;

export function startProgress(opts: ProgressOptions): Progress {
  const stream = opts.stream ?? process.stderr;
  return stream.isTTY === true && opts.interactive !== false
    ? terminalBar(opts, stream)
    : plainLines(opts, stream);
}

function terminalBar(opts: ProgressOptions, stream: NodeJS.WriteStream): Progress {
  const known = opts.total !== undefined;
  const multi = new cliProgress.MultiBar({
    stream,
    format: known
      ? `${opts.label} [{bar}] {percentage}% {value}/{total} {detail}`
      : `${opts.label} {value} ${opts.unit ?? 'items'} {detail}`,
    barCompleteChar: '#',
    barIncompleteChar: '.',
    barsize: 30,
    fps: 10,
    // Never touch terminal modes (hidden cursor, no wrapping): Ctrl-C would leave them behind.
    // Lines are cut to the terminal's width instead of wrapping.
    hideCursor: false,
    linewrap: true,
    gracefulExit: false,
    clearOnComplete: false,
    autopadding: false,
  });
  const bar = multi.create(opts.total ?? 0, 0, { detail: '' });
  let stopped = false;
  return {
    update(done, detail) {
      if (!stopped) bar.update(done, { detail: detail ?? '' });
    },
    log(line) {
      if (stopped) stream.write(line + '\n');
      else multi.log(line + '\n');
    },
    stop() {
      if (stopped) return;
      stopped = true;
      // MultiBar.stop() does not flush lines logged since the last redraw: redraw once first.
      multi.update();
      multi.stop();
    },
  };
}

function plainLines(opts: ProgressOptions, stream: NodeJS.WriteStream): Progress {
  const total = opts.total;
  let lastDecile = -1;
  let lastLineAt = Date.now();
  let done = 0;
  let detail = '';
  let stopped = false;
  const line = () =>
    total === undefined
      ? `${opts.label}: ${done} ${opts.unit ?? 'items'}${detail ? ` ${detail}` : ''}`
      : `${opts.label}: ${percent(done, total)}% ${done}/${total}${detail ? ` ${detail}` : ''}`;
  const print = () => {
    stream.write(line() + '\n');
    lastLineAt = Date.now();
  };
  return {
    update(value, text) {
      if (stopped) return;
      done = value;
      detail = text ?? '';
      if (total === undefined) {
        if (Date.now() - lastLineAt >= PLAIN_INTERVAL_MS) print();
        return;
      }
      const decile = Math.floor(percent(done, total) / 10);
      if (decile !== lastDecile) {
        lastDecile = decile;
        print();
      }
    },
    log(text) {
      stream.write(text + '\n');
    },
    stop() {
      if (stopped) return;
      stopped = true;
      // The last state, unless it was just printed (a run that ends at 100% has printed it).
      if (total !== undefined && lastDecile !== Math.floor(percent(done, total) / 10)) print();
    },
  };
}

function percent(done: number, total: number): number {
  return total === 0 ? 100 : Math.min(100, Math.floor((done / total) * 100));
}
