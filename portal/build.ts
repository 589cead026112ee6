import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleApp } from '../dashboard/build';

const here = fileURLToPath(new URL('.', import.meta.url));

/**
 * The files the portal is made of, besides config.json, which whoever serves it writes.
 * The index.html in `activate/` is the page the `<portal url>/activate/#<request>` links
 * of the app libraries open: the portal's own index.html, its files one folder up.
 */
export const portalFiles = ['index.html', 'activate/index.html', 'app.js', 'app.css', 'palette.css', 'favicon.svg'] as const;

/**
 * Builds the customers' portal into `outDir`: a bundle of its own from portal/src,
 * which imports none of the dashboard's sources, so no owner screen or API key
 * handling reaches customers. Synchronous and offline, like the dashboard's build.
 */
export function buildPortal(outDir: string): string {
  mkdirSync(join(outDir, 'activate'), { recursive: true });
  bundleApp(join(here, 'src', 'main.tsx'), join(outDir, 'app.js'));
  const html = readFileSync(join(here, 'index.html'), 'utf8');
  writeFileSync(join(outDir, 'index.html'), html);
  writeFileSync(join(outDir, 'activate', 'index.html'), html.replace(/(href|src)="(?!\w+:)/g, '$1="../'));
  copyFileSync(join(here, 'app.css'), join(outDir, 'app.css'));
  // The dashboard's colours and key mark: an owner's brand is its application's name, shown on every screen.
  for (const file of ['palette.css', 'favicon.svg']) copyFileSync(join(here, '..', 'dashboard', file), join(outDir, file));
  return outDir;
}
