import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { extname, join } from 'node:path';
import { dashboardFiles } from '../dashboard/build';
import { dashboardCsp } from '../dashboard/csp';
import { portalFiles } from '../portal/build';

export interface StaticSite {
  /** The built files (dashboard/build.ts, portal/build.ts). */
  dir: string;
  /** Written into config.json: where the site sends its API calls. */
  apiUrl: string;
}

/** Where each site is served and the files it is made of: nothing else under its path is read from disk. */
const sites = {
  dashboard: { prefix: '/dashboard/', files: dashboardFiles },
  portal: { prefix: '/portal/', files: portalFiles },
} as const;

export type SiteName = keyof typeof sites;

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
};

/**
 * `/dashboard/…` or `/portal/…` on the local server, with the headers CloudFront's
 * response headers policy adds when deployed, so the browser tests run under the
 * same CSP. A path ending in `/` is its folder's index.html, as the portal's
 * distribution rewrites it. Answers false for any other path.
 */
export async function serveSite(name: SiteName, site: StaticSite, pathname: string, response: ServerResponse): Promise<boolean> {
  const { prefix, files } = sites[name];
  if (pathname === prefix.slice(0, -1)) {
    response.writeHead(308, { Location: prefix }).end();
    return true;
  }
  if (!pathname.startsWith(prefix)) return false;
  const file = pathname.slice(prefix.length).replace(/(^|\/)$/, '$1index.html');
  const headers = {
    'Content-Security-Policy': dashboardCsp(new URL(site.apiUrl).origin),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-cache',
  };
  if (file === 'config.json') {
    response.writeHead(200, { ...headers, 'Content-Type': types['.json'] }).end(JSON.stringify({ apiUrl: site.apiUrl }));
  } else if ((files as readonly string[]).includes(file)) {
    response.writeHead(200, { ...headers, 'Content-Type': types[extname(file)] ?? 'application/octet-stream' }).end(await readFile(join(site.dir, file)));
  } else {
    response.writeHead(404, { ...headers, 'Content-Type': 'text/plain' }).end('Not found');
  }
  return true;
}
