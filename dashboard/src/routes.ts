import { useLayoutEffect, useMemo } from 'preact/hooks';
import { useHashLocation } from 'wouter-preact/use-hash-location';

/**
 * The dashboard's addresses, all in the fragment: CloudFront serves the static
 * files with no rewrite rule, so only `/dashboard/` itself ever reaches it.
 *
 *   #/                                    the application picker
 *   #/apps/<app_id>/<screen>?<query>      a screen of an application, its filters in the query
 *   #/apps/<app_id>/licenses/<key>        one license
 *
 * Screens build their links with `paths` and `href`, and read their filters with
 * `useQuery`: nothing else in the dashboard spells an address.
 */

/** What comes after `#`: a path and, optionally, `?query`. */
export type Path = `/${string}`;

const segment = (value: string) => encodeURIComponent(value);

function withQuery(path: Path, query?: Record<string, string | undefined>): Path {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) if (value) search.set(name, value);
  const text = search.toString();
  return text ? `${path}?${text}` : path;
}

export const paths = {
  picker: (): Path => '/',
  /** A screen of an application by its path segment (`licenses`, `audit`, …), with its filters. */
  screen: (appId: string, screen: string, query?: Record<string, string | undefined>): Path => withQuery(`/apps/${segment(appId)}/${segment(screen)}`, query),
  license: (appId: string, key: string): Path => `/apps/${segment(appId)}/licenses/${segment(key)}`,
};

/** An `href` for an `<a>`: the path in the fragment. */
export const href = (path: Path): string => `#${path}`;

const split = (location: string): [string, string] => {
  const at = location.indexOf('?');
  return at < 0 ? [location, ''] : [location.slice(0, at), location.slice(at + 1)];
};

/**
 * Goes to `path`, a new history entry unless `replace`. wouter's own hash `navigate`
 * moves a `?query` out of the fragment into the page's query string, where it would
 * outlive the screen it belongs to; this keeps it in the fragment.
 */
export function navigate(path: Path, { replace = false }: { replace?: boolean } = {}): void {
  const oldURL = location.href;
  const url = new URL(oldURL);
  url.hash = path;
  if (url.href === oldURL) return;
  history[replace ? 'replaceState' : 'pushState'](null, '', url.href);
  dispatchEvent(new HashChangeEvent('hashchange', { oldURL, newURL: url.href }));
}

/** The location hook for wouter's `<Router hook>`: the fragment's path, without its query. */
export function useHashPath(): [string, (to: string, options?: { replace?: boolean }) => void] {
  const [location] = useHashLocation();
  return [split(location)[0], (to, options) => navigate(to as Path, options)];
}
useHashPath.hrefs = (path: string) => `#${path}`;

/** The search hook for wouter's `<Router searchHook>`: the query inside the fragment. */
export function useHashSearch(): string {
  return split(useHashLocation()[0])[1];
}

/**
 * The current screen's query as an object of strings, and a setter that keeps the
 * path and replaces the named parameters (an empty value removes one). Filter
 * changes are new history entries, so Back returns to the previous filter.
 */
export function useQuery<Name extends string>(): [Partial<Record<Name, string>>, (patch: Partial<Record<Name, string>>, options?: { replace?: boolean }) => void] {
  const [location] = useHashLocation();
  const [path, search] = split(location);
  const query = useMemo(() => Object.fromEntries(new URLSearchParams(search)) as Partial<Record<Name, string>>, [search]);
  const setQuery = (patch: Partial<Record<Name, string>>, options?: { replace?: boolean }) =>
    navigate(withQuery(path as Path, { ...query, ...patch } as Record<string, string | undefined>), options);
  return [query, setQuery];
}

/**
 * Sets the tab's title for as long as a screen shows: `<screen> · <application> · Licensing dashboard`,
 * in the commit that draws the screen (a layout effect), so screen and title never disagree.
 */
export function useTitle(...parts: (string | undefined)[]): void {
  const title = [...parts.filter(Boolean), 'Licensing dashboard'].join(' · ');
  useLayoutEffect(() => {
    document.title = title;
  }, [title]);
}
