// `npm run build`: dist/esm (ES modules and declarations, by tsc) and dist/cjs
// (one CommonJS file by esbuild, the same declarations, a package.json marking the folder CommonJS).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const dist = join(here, 'dist');
rmSync(dist, { recursive: true, force: true });

execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(here, 'tsconfig.build.json')], { stdio: 'inherit' });

await build({
  entryPoints: [join(here, 'src', 'index.ts')],
  outfile: join(dist, 'cjs', 'index.js'),
  bundle: true,
  packages: 'external',
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  logLevel: 'warning',
});
writeFileSync(join(dist, 'cjs', 'package.json'), '{"type":"commonjs"}\n');
for (const file of readdirSync(join(dist, 'esm')).filter((name) => name.endsWith('.d.ts'))) copyFileSync(join(dist, 'esm', file), join(dist, 'cjs', file));
