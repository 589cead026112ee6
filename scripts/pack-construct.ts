import { execFileSync, execSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { buildDashboard } from '../dashboard/build';
import type { FunctionName } from '../functions/routes';
import { esbuildOptions, functionEntries, xrayChunkCommand } from '../lib/bundling';

/**
 * `npm run pack:construct`: builds construct/ (the LicensingService construct, its
 * Lambda bundles and the dashboard) and packs it with npm. The tarball's path is the
 * last line of stdout; everything else goes to stderr.
 */
const projectRoot = fileURLToPath(new URL('..', import.meta.url));
const packageDir = join(projectRoot, 'construct');
const dist = join(packageDir, 'dist');
const log = (line: string) => process.stderr.write(`${line}\n`);

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });

// The bundles NodejsFunction makes at synth in this repository (lib/code.ts), with the same options: the same code deploys.
await Promise.all(
  (Object.entries(functionEntries) as [FunctionName, string][]).map(async ([name, entry]) => {
    const outDir = join(dist, 'lambda', name);
    await build({
      ...esbuildOptions(projectRoot),
      entryPoints: [join(projectRoot, entry)],
      outfile: join(outDir, 'index.mjs'),
      // NodejsFunction links the map from the bundle, which NODE_OPTIONS=--enable-source-maps follows.
      sourcemap: 'linked',
      logLevel: 'warning',
    });
    execSync(xrayChunkCommand(projectRoot, outDir), { stdio: ['ignore', 'ignore', 'inherit'] });
  }),
);
log(`lambda bundles: ${Object.keys(functionEntries).join(', ')}`);
buildDashboard(join(dist, 'dashboard'));

/** The package's lib/code.ts is construct/src/code.ts: code built ahead, not bundled at synth. */
const prebuiltCode: Plugin = {
  name: 'prebuilt-code',
  setup(plugin) {
    plugin.onResolve({ filter: /^\.\/code$/ }, (args) =>
      args.importer.startsWith(join(projectRoot, 'lib')) ? { path: join(packageDir, 'src', 'code.ts') } : undefined,
    );
  },
};
await build({
  entryPoints: [join(packageDir, 'src', 'index.ts')],
  outfile: join(dist, 'index.js'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['aws-cdk-lib', 'aws-cdk-lib/*', 'constructs'],
  tsconfig: join(projectRoot, 'tsconfig.json'),
  plugins: [prebuiltCode],
  logLevel: 'warning',
});
execFileSync(join(projectRoot, 'node_modules', '.bin', 'tsc'), ['-p', join(packageDir, 'tsconfig.json')], { stdio: ['ignore', 'inherit', 'inherit'] });
log('library and declarations built');

const packDir = join(packageDir, 'pack');
mkdirSync(packDir, { recursive: true });
const packed = JSON.parse(
  execFileSync('npm', ['pack', '--json', '--pack-destination', packDir], { cwd: packageDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }),
) as { filename: string; size: number }[];
const tarball = join(packDir, packed[0]!.filename);
log(`packed ${packed[0]!.size} bytes`);
process.stdout.write(`${tarball}\n`);
