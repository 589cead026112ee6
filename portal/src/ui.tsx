import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { ServiceError } from './api';

/** A refusal in the service's own words; a live region, so a screen reader reads it out. */
export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  const text = error instanceof ServiceError && error.code !== error.message ? `${error.message} (${error.code})` : error instanceof Error ? error.message : String(error);
  return (
    <p class="error" role="alert">
      {text}
    </p>
  );
}

export function Notice({ text }: { text: string }) {
  return text ? (
    <p class="notice" role="status">
      {text}
    </p>
  ) : null;
}

export function Field({ label, hint, children }: { label: string; hint?: string; children: ComponentChildren }) {
  return (
    <label class="field">
      <span>{label}</span>
      {children}
      {hint && <small class="hint">{hint}</small>}
    </label>
  );
}

/** Moves keyboard focus to the element when it appears: a new step of a form starts where the customer types. */
export function useFocusOnMount<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  useEffect(() => ref.current?.focus(), []);
  return ref;
}

/** A file made in the page: a blob URL, so the license file goes from the answer to the disk and nowhere else. */
export function download(name: string, text: string, type: string) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

const format = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** An ISO time for people, with the machine form kept in `datetime`. */
export function Time({ iso }: { iso: string }) {
  return <time dateTime={iso}>{format.format(new Date(iso))}</time>;
}
