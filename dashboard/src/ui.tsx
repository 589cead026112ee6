import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api';

/** Every failure is shown in words, with its error_code for searching the docs. */
export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  const text = error instanceof ApiError ? `${error.message} (${error.code})` : error instanceof Error ? error.message : String(error);
  return (
    <p class="error" role="alert">
      {text}
    </p>
  );
}

/**
 * A table's frame that scrolls sideways on a narrow screen; it takes keyboard focus so the
 * hidden columns can be scrolled to without a mouse (axe's scrollable-region-focusable).
 */
export function TableWrap({ children }: { children: ComponentChildren }) {
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label="Table, scrolls sideways">
      {children}
    </div>
  );
}

export function Notice({ text }: { text: string }) {
  return text ? (
    <p class="notice" role="status">
      {text}
    </p>
  ) : null;
}

/** Runs an API action, holding its error and a busy flag for the form that started it. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  /** `current` says whether this action still owns the error slot once it fails (no later action started). */
  const run = async <T,>(action: () => Promise<T>, current: () => boolean = () => true): Promise<T | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await action();
    } catch (caught) {
      if (current()) setError(caught);
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, setError };
}

/**
 * Notices placed where their action ran: `act(at, ...)` runs the action of the card, form or row
 * named `at`, `say(at, ...)` tells a problem found there before anything was sent, and `note(at)`
 * shows that place's notice or error. Each new action clears what the last one said.
 */
export function usePlacedNotice() {
  const { busy, error, run: runHere, setError } = useAction();
  const [notice, setNotice] = useState('');
  const [where, setWhere] = useState<string | null>(null);
  // Counts what was started here, so that an action still awaiting its answer (say, a create that then
  // reloads the list) cannot write its outcome over what a later one (a copy of the secret it showed) said.
  const started = useRef(0);
  const begin = (at: string | null) => {
    started.current += 1;
    setWhere(at);
    setNotice('');
    const mine = started.current;
    return () => started.current === mine;
  };
  /** An action of the screen as a whole (loading a list): it reports at `note(null)`. */
  const run = <T,>(action: () => Promise<T>) => runHere(action, begin(null));
  const act = async <T,>(at: string, action: () => Promise<T>, done?: string | ((result: T) => string)): Promise<T | undefined> => {
    const current = begin(at);
    const result = await runHere(action, current);
    if (current() && result !== undefined && done !== undefined) setNotice(typeof done === 'function' ? done(result) : done);
    return result;
  };
  const say = (at: string, problem: string | Error) => {
    begin(at);
    setError(problem instanceof Error ? problem : new Error(problem));
  };
  /** `text` as the notice of `at`, e.g. from a copy button: no API call ran. */
  const tell = (at: string, text: string) => {
    begin(at);
    setError(null);
    setNotice(text);
  };
  const note = (at: string | null) =>
    where === at ? (
      <>
        <Notice text={notice} />
        <ErrorNote error={error} />
      </>
    ) : null;
  return { busy, error, where, run, act, say, tell, note, setError };
}

/**
 * Copies `text` and says `<label> copied.`, or, when the browser refuses (no permission, no secure
 * context), says to select the `<noun>` and copy it by hand.
 */
export async function copyText(text: string, label: string, noun: string, say: { notice: (text: string) => void; error: (error: Error) => void }) {
  try {
    await navigator.clipboard.writeText(text);
    say.notice(`${label} copied.`);
  } catch {
    say.error(new Error(`The browser did not allow copying; select the ${noun} and copy it by hand.`));
  }
}

export interface ConfirmRequest {
  title: string;
  text: string;
  action: string;
  onConfirm: () => void;
}

/** A modal <dialog>: focus is trapped, Escape cancels, and the destructive button names what it does. */
export function ConfirmDialog({ request, onClose }: { request: ConfirmRequest | null; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (request && !element.open) element.showModal();
    if (!request && element.open) element.close();
  }, [request]);
  return (
    <dialog ref={dialog} onClose={onClose} aria-labelledby="confirm-title">
      {request && (
        <form method="dialog">
          <h2 id="confirm-title">{request.title}</h2>
          <p>{request.text}</p>
          <div class="row">
            <button type="button" class="danger" onClick={() => { request.onConfirm(); onClose(); }}>
              {request.action}
            </button>
            <button type="submit" autofocus>
              Cancel
            </button>
          </div>
        </form>
      )}
    </dialog>
  );
}

export function Field({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <label class="field">
      <span>{label}</span>
      {children}
    </label>
  );
}

/** The longest duration a license may have (docs/management-api.md#licenses): 100 years. */
export const maxDurationSeconds = 100 * 31536000;

/**
 * A duration from a form with DurationFields, in seconds, or a sentence saying what
 * is wrong with it: checked here, so the API's validator never has to answer.
 */
export function readDuration(data: FormData, valueName: string, unitName: string): { seconds: number; text: string } | { problem: string } {
  const unit = String(data.get(unitName)) as (typeof units)[number];
  const value = wholeNumber(data.get(valueName), 1, Infinity);
  if (value === undefined || !(unit in unitSeconds)) return { problem: 'Enter a whole number of hours, days, weeks, months or years, 1 or more.' };
  const seconds = value * unitSeconds[unit];
  if (seconds > maxDurationSeconds) return { problem: 'A license lasts at most 100 years.' };
  return { seconds, text: plural(value, unit.slice(0, -1)) };
}

/** A whole number of one of the API's duration units, 30 days unless changed; read the form with `readDuration`. */
export function DurationFields({ label, valueName, unitName }: { label: string; valueName: string; unitName: string }) {
  return (
    <>
      <Field label={label}>
        <input name={valueName} type="number" min={1} step={1} required defaultValue="30" />
      </Field>
      <Field label="Unit">
        <select name={unitName}>
          {units.map((unit) => (
            <option key={unit} value={unit} selected={unit === 'days'}>
              {unit}
            </option>
          ))}
        </select>
      </Field>
    </>
  );
}

/**
 * Previous and next over a cursor-paged list. `cursors` holds the cursor of each
 * page reached so far (undefined for the first), so going back needs no cursor of its own.
 */
export function Pager({
  cursors,
  next,
  busy,
  onChange,
  numbered = false,
}: {
  cursors: (string | undefined)[];
  next: string | null | undefined;
  busy: boolean;
  onChange: (cursors: (string | undefined)[]) => void;
  numbered?: boolean;
}) {
  return (
    <nav class="row" aria-label="Pages">
      <button type="button" disabled={cursors.length < 2 || busy} onClick={() => onChange(cursors.slice(0, -1))}>
        Previous page
      </button>
      {numbered && <span>Page {cursors.length}</span>}
      <button type="button" disabled={!next || busy} onClick={() => next && onChange([...cursors, next])}>
        Next page
      </button>
    </nav>
  );
}

/** `1 license`, `2 licenses`: a count with its noun in the right number. */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString('en')} ${count === 1 ? one : many}`;
}

const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
const steps: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 31536000],
  ['month', 2592000],
  ['day', 86400],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

/** `in 30 days`, `3 hours ago`: how far a moment is from now, in its largest whole unit. */
export function fromNow(iso: string, now = Date.now()): string {
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  const [unit, size] = steps.find(([, length]) => Math.abs(seconds) >= length) ?? ['second', 1];
  return relative.format(Math.trunc(seconds / size), unit);
}

/** The moment in the browser's time zone, e.g. `24 Nov 2026, 06:12`. */
export const localTime = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A moment as text: relative and in the browser's time zone; `—` when there is none. */
export const shortTime = (iso: string | null | undefined) => (iso ? `${localTime(iso)} (${fromNow(iso)})` : '—');

/** A moment on screen: relative, then the browser's local time; the exact UTC time on hover. */
export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <>—</>;
  return (
    <time dateTime={iso} title={`${iso.replace(/\.\d+Z$/, 'Z')} (UTC)`}>
      {fromNow(iso)} <span class="muted">{localTime(iso)}</span>
    </time>
  );
}

/** A file download made in the page: a blob URL, so no key or data leaves the browser. */
export function download(name: string, text: string, type: string) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function csv(rows: string[][]): string {
  return `${rows.map((row) => row.map((cell) => (/[",\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell)).join(',')).join('\n')}\n`;
}

/** Duration units of the API, with their length in seconds (docs/management-api.md#licenses, "Durations": a month is 30 days, a year 365). */
export const units = ['hours', 'days', 'weeks', 'months', 'years'] as const;
export const unitSeconds: Record<(typeof units)[number], number> = { hours: 3600, days: 86400, weeks: 604800, months: 2592000, years: 31536000 };

/** A duration in seconds in the largest whole unit that fits: `30 days`, `1 year`, `90 seconds`. */
export function duration(seconds: number): string {
  if (seconds === 0) return '0 seconds';
  const whole = (size: number, unit: string) => (seconds % size === 0 ? plural(seconds / size, unit) : undefined);
  return whole(31536000, 'year') ?? whole(604800, 'week') ?? whole(86400, 'day') ?? whole(3600, 'hour') ?? whole(60, 'minute') ?? plural(seconds, 'second');
}

/** A whole number from a form field (`1e3` is 1000), or undefined when the field holds anything else (`2.5`, empty, out of range). */
export function wholeNumber(value: FormDataEntryValue | null, min: number, max: number): number | undefined {
  const text = String(value ?? '').trim();
  const number = Number(text);
  return text !== '' && Number.isInteger(number) && number >= min && number <= max ? number : undefined;
}

/** The tags /trial and a bought trial carry (docs/management-api.md#trials): the list filters by them and marks them. */
export const trialTags = new Set(['trial', 'trial-converted']);

/** A license's tags, a trial's and a bought trial's marked. */
export function Tags({ tags }: { tags: string[] }) {
  const others = tags.filter((tag) => !trialTags.has(tag));
  return (
    <>
      {tags.includes('trial') && <span class="badge trial">trial</span>}
      {tags.includes('trial-converted') && <span class="badge converted">bought trial</span>}
      {others.length > 0 && ` ${others.join(', ')}`}
    </>
  );
}
