import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { dashboardFiles } from '../dashboard/build';
import { dashboardCsp } from '../dashboard/csp';

export interface DashboardSite {
  /** The built files (dashboard/build.ts). */
  dir: string;
  /** Written into config.json: where the dashboard sends its API calls. */
  apiUrl: string;
}

const types: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
  'uplot.css': 'text/css; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
  'config.json': 'application/json',
};

/**
 * `/dashboard/…` on the local server, with the headers CloudFront's response
 * headers policy adds when deployed, so the browser tests run under the same CSP.
 * Answers false for any other path.
 */
export async function serveDashboard(site: DashboardSite, pathname: string, response: ServerResponse): Promise<boolean> {
  if (pathname === '/dashboard') {
    response.writeHead(308, { Location: '/dashboard/' }).end();
    return true;
  }
  if (!pathname.startsWith('/dashboard/')) return false;
  const name = pathname.slice('/dashboard/'.length) || 'index.html';
  const headers = {
    'Content-Security-Policy': dashboardCsp(new URL(site.apiUrl).origin),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-cache',
  };
  const type = types[name];
  if (name === 'config.json') {
    response.writeHead(200, { ...headers, 'Content-Type': types[name] }).end(JSON.stringify({ apiUrl: site.apiUrl }));
  } else if (type && (dashboardFiles as readonly string[]).includes(name)) {
    response.writeHead(200, { ...headers, 'Content-Type': type }).end(await readFile(join(site.dir, name)));
  } else {
    response.writeHead(404, { ...headers, 'Content-Type': 'text/plain' }).end('Not found');
  }
  return true;
}
