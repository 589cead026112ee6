import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

const here = fileURLToPath(new URL('.', import.meta.url));

/** The files the dashboard is made of, besides config.json, which whoever serves it writes. */
export const dashboardFiles = ['index.html', 'app.js', 'app.css', 'palette.css', 'uplot.css', 'favicon.svg'] as const;

/** A web app's Preact sources as one minified module: the dashboard's, and the portal's (portal/build.ts) from its own sources. */
export function bundleApp(entry: string, outfile: string): void {
  buildSync({
    entryPoints: [entry],
    outfile,
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    logLevel: 'error',
  });
}

/**
 * Builds the dashboard's static files into `outDir`. Synchronous and offline, so
 * `npm start`, the tests and `cdk synth` each build it themselves and a fresh
 * clone never serves a stale copy.
 */
export function buildDashboard(outDir: string): string {
  mkdirSync(outDir, { recursive: true });
  bundleApp(join(here, 'src', 'main.tsx'), join(outDir, 'app.js'));
  copyFileSync(join(here, 'index.html'), join(outDir, 'index.html'));
  for (const file of ['app.css', 'palette.css', 'favicon.svg']) copyFileSync(join(here, file), join(outDir, file));
  // The chart library's stylesheet as a file of its own: the CSP allows no inline style.
  copyFileSync(createRequire(import.meta.url).resolve('uplot/dist/uPlot.min.css'), join(outDir, 'uplot.css'));
  return outDir;
}
