import { execFileSync, execSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { buildDashboard } from '../dashboard/build';
import { buildPortal } from '../portal/build';
import type { FunctionName } from '../functions/routes';
import { functionEntries, lambdaBuildOptions, xrayChunkCommand } from '../lib/bundling';

/**
 * `npm run pack:construct`: builds construct/ (the LicensingService construct, its
 * Lambda bundles, the dashboard and the portal) and packs it with npm. The tarball's path is the
 * last line of stdout; everything else goes to stderr.
 */
const projectRoot = fileURLToPath(new URL('..', import.meta.url));
const packageDir = join(projectRoot, 'construct');
const dist = join(packageDir, 'dist');
const log = (line: string) => process.stderr.write(`${line}\n`);

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });

// The bundles lib/code.ts makes at synth in this repository, with the same options: the same code deploys.
await Promise.all(
  (Object.entries(functionEntries) as [FunctionName, string][]).map(async ([name, entry]) => {
    const outDir = join(dist, 'lambda', name);
    await build(lambdaBuildOptions(projectRoot, entry, outDir));
    execSync(xrayChunkCommand(projectRoot, outDir), { stdio: ['ignore', 'ignore', 'inherit'] });
  }),
);
log(`lambda bundles: ${Object.keys(functionEntries).join(', ')}`);
buildDashboard(join(dist, 'dashboard'));
buildPortal(join(dist, 'portal'));

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
const declarations = mkdtempSync(join(tmpdir(), 'licensing-construct-types-'));
execFileSync(join(projectRoot, 'node_modules', '.bin', 'tsc'), ['-p', join(packageDir, 'tsconfig.json'), '--outDir', declarations], {
  stdio: ['ignore', 'inherit', 'inherit'],
});
copyDeclarations(declarations, join(dist, 'types'), join('construct', 'src', 'index.d.ts'));
rmSync(declarations, { recursive: true, force: true });
log('library and declarations built');

const packDir = join(packageDir, 'pack');
mkdirSync(packDir, { recursive: true });
const packed = JSON.parse(
  execFileSync('npm', ['pack', '--json', '--pack-destination', packDir], { cwd: packageDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }),
) as { filename: string; size: number }[];
const tarball = join(packDir, packed[0]!.filename);
log(`packed ${packed[0]!.size} bytes`);
process.stdout.write(`${tarball}\n`);

/**
 * Copies the declaration files the package's types reach from its entry, and no
 * others: tsc declares every file of the program, including handlers whose types
 * import packages an owner's app does not have. A reachable file importing anything
 * but the peers stops the pack.
 */
function copyDeclarations(from: string, to: string, entry: string): void {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(join(from, file), 'utf8');
    for (const [, specifier] of text.matchAll(/(?:from |import\()['"]([^'"]+)['"]/g)) {
      if (specifier!.startsWith('.')) visit(relative(from, join(from, dirname(file), `${specifier!.replace(/\.js$/, '')}.d.ts`)));
      else if (!/^(aws-cdk-lib|constructs)(\/|$)/.test(specifier!)) throw new Error(`${file} imports ${specifier}, which the package does not ship`);
    }
    mkdirSync(dirname(join(to, file)), { recursive: true });
    copyFileSync(join(from, file), join(to, file));
  };
  visit(entry);
}
