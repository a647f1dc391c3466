// Figures of the repetitions: median (min–max) and the text tables the bench prints.
export const MiB = 1024 * 1024;
export const mib = (bytes) => bytes / MiB;

/** { median, min, max, n } of the finite numbers in `values`. */
export function spread(values) {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return { median: NaN, min: NaN, max: NaN, n: 0 };
  const middle = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  return { median, min: sorted[0], max: sorted[sorted.length - 1], n: sorted.length };
}

/** Summary of one engine × scenario: every figure as a spread over the repetitions. */
export function summarize(reps) {
  const of = (pick) => spread(reps.map(pick));
  return {
    clientSeconds: of((r) => r.client.seconds),
    clientRowsPerSecond: of((r) => r.client.rowsPerSecond),
    clientMibPerSecond: of((r) => r.client.mibPerSecond),
    fetcherSeconds: of((r) => r.fetcher.seconds),
    fetcherWorkerSeconds: of((r) => r.fetcher.workerSeconds),
    fetcherRowsPerSecond: of((r) => r.fetcher.rowsPerSecond),
    fetcherMibPerSecond: of((r) => r.fetcher.mibPerSecond),
    ratio: of((r) => r.ratio),
    cliSeconds: of((r) => r.cli?.seconds),
    cliRowsPerSecond: of((r) => r.cli?.rowsPerSecond),
    cliMibPerSecond: of((r) => r.cli?.mibPerSecond),
    cliRatio: of((r) => r.cliRatio),
    cliPeakRssBytes: of((r) => r.cli?.peakRssBytes),
    peakRssBytes: of((r) => r.fetcher.peakRssBytes),
    idleHwmBytes: of((r) => r.fetcher.idleHwmBytes),
    idleRssBytes: of((r) => r.fetcher.idleRssBytes),
  };
}

const integer = (value) => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '–');
const fixed = (digits) => (value) => (Number.isFinite(value) ? value.toFixed(digits) : '–');
const percent = (value) => (Number.isFinite(value) ? `${(value * 100).toFixed(1)} %` : '–');
const mebibytes = (value) => (Number.isFinite(value) ? mib(value).toFixed(1) : '–');

/** The table of one engine × scenario, as lines. */
export function formatSummary(summary, { clientLabel, reps }) {
  const side = (label) => label.padEnd(Math.max(clientLabel.length, 'fetcher extract'.length) + 2);
  const more = side('');
  const rows = [
    [`${side(clientLabel)}s`, summary.clientSeconds, fixed(2)],
    [`${more}rows/s`, summary.clientRowsPerSecond, integer],
    [`${more}MiB/s`, summary.clientMibPerSecond, fixed(1)],
    [`${side('Fetcher')}POST→completed s`, summary.fetcherSeconds, fixed(2)],
    [`${more}in worker s`, summary.fetcherWorkerSeconds, fixed(2)],
    [`${more}rows/s`, summary.fetcherRowsPerSecond, integer],
    [`${more}MiB/s`, summary.fetcherMibPerSecond, fixed(1)],
    ['ratio Fetcher ÷ client rows/s', summary.ratio, percent],
    [`${side('fetcher extract')}s (to a file)`, summary.cliSeconds, fixed(2)],
    [`${more}rows/s`, summary.cliRowsPerSecond, integer],
    [`${more}MiB/s`, summary.cliMibPerSecond, fixed(1)],
    ['ratio fetcher extract ÷ client rows/s', summary.cliRatio, percent],
    ['fetcher extract peak RSS (VmHWM) MiB', summary.cliPeakRssBytes, mebibytes],
    ['worker peak RSS (VmHWM) MiB', summary.peakRssBytes, mebibytes],
    ['idle after boot VmHWM MiB', summary.idleHwmBytes, mebibytes],
    ['idle after boot VmRSS MiB', summary.idleRssBytes, mebibytes],
  ];
  const labelWidth = Math.max(...rows.map(([label]) => label.length));
  const cells = rows.map(([label, s, format]) => [label, format(s.median), format(s.min), format(s.max)]);
  const widths = [1, 2, 3].map((i) => Math.max(...cells.map((cell) => cell[i].length), 6));
  const line = (a, b, c, d) => `  ${a.padEnd(labelWidth)}  ${b.padStart(widths[0])}  ${c.padStart(widths[1])}  ${d.padStart(widths[2])}`;
  return [line('', 'median', 'min', 'max') + (reps > 1 ? '' : '   (1 rep)'), ...cells.map((cell) => line(...cell))];
}

/** One line per repetition, printed as it finishes. */
export function formatRep(rep, total, r, clientLabel) {
  const verified = r.verify
    ? r.verify.ok
      ? `verified ${integer(r.verify.rows)} rows, sha256 ok (${r.verify.seconds.toFixed(1)} s)`
      : 'VERIFY FAILED'
    : 'not verified';
  return (
    `  rep ${rep}/${total}  ${clientLabel} ${r.client.seconds.toFixed(2)} s · Fetcher ${r.fetcher.seconds.toFixed(2)} s` +
    ` (${integer(r.fetcher.rowsPerSecond)} rows/s, ${r.fetcher.mibPerSecond.toFixed(1)} MiB/s) · ratio ${percent(r.ratio)}` +
    ` · peak ${mebibytes(r.fetcher.peakRssBytes)} MiB, idle ${mebibytes(r.fetcher.idleHwmBytes)} MiB · ${verified}` +
    (r.cli === undefined
      ? ''
      : r.cli.seconds === undefined
        ? ' · fetcher extract FAILED'
        : ` · fetcher extract ${r.cli.seconds.toFixed(2)} s, ratio ${percent(r.cliRatio)}`)
  );
}
