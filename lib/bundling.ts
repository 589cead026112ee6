import * as path from 'node:path';
import type { BuildOptions } from 'esbuild';
import { xrayChunkFile } from '../functions/core/tracing';
import { authorizerEntry, deliveryEntry, groups, handlerEntry, type FunctionName } from '../functions/routes';

/**
 * How every Lambda is bundled: the CDK stack (lib/code.ts), the construct
 * package (scripts/pack-construct.ts) and the benchmark all build with
 * lambdaBuildOptions, so the bundle measured is the bundle deployed.
 */
export const lambdaBundling = {
  format: 'esm',
  target: 'node22',
  minify: true,
  mainFields: ['module', 'main'],
  // The AWS SDK is bundled, not left to the runtime's copy: pinned versions, and a
  // faster cold start (the runtime's copy measured 25–43 ms slower to import).
  externalModules: [],
} as const;

/** The entry file of every Lambda, relative to the project root. */
export const functionEntries: Record<FunctionName, string> = {
  ...(Object.fromEntries(groups.map((group) => [group, handlerEntry(group)])) as Record<(typeof groups)[number], string>),
  authorizer: authorizerEntry,
  // The events consumer has no route: the table's stream invokes it.
  events: 'functions/events/handler.ts',
  openapi: 'functions/openapi/handler.ts',
  // Webhook deliveries have no route: the delivery queue invokes it.
  delivery: deliveryEntry,
};

/** Where a bundle's chunks go, beside its index.mjs. */
export const chunkDir = 'chunks';

/**
 * One Lambda's build into outdir: `index.mjs`, and under `chunks/` the modules
 * it reaches only through `import()` (bcryptjs, jose, the KMS client, the
 * parts of the AWS SDK it loads on first use), which a cold start neither
 * reads nor compiles until a request needs them (docs/performance.md, "Bundles
 * and cold start"). Each file has its source map beside it, linked so that a
 * function run with `NODE_OPTIONS=--enable-source-maps` (log level `debug`)
 * finds it, and so that `npm run symbolicate` can read it offline
 * (docs/operations.md#reading-a-stack-trace).
 */
export function lambdaBuildOptions(projectRoot: string, entry: string, outdir: string): BuildOptions & { outdir: string } {
  return {
    entryPoints: { index: path.join(projectRoot, entry) },
    outdir,
    bundle: true,
    splitting: true,
    platform: 'node',
    format: lambdaBundling.format,
    target: lambdaBundling.target,
    minify: lambdaBundling.minify,
    sourcemap: 'linked',
    outExtension: { '.js': '.mjs' },
    chunkNames: `${chunkDir}/[name]-[hash]`,
    mainFields: [...lambdaBundling.mainFields],
    external: [...lambdaBundling.externalModules],
    tsconfig: path.join(projectRoot, 'tsconfig.json'),
    logLevel: 'warning',
  };
}

/**
 * The X-Ray SDK, built beside each handler bundle as a file of its own, which
 * functions/core/tracing.ts imports only when tracing is on. The SDK is
 * CommonJS and require()s Node's built-ins, which an ES module has no require()
 * for: the chunk gets one from createRequire.
 */
export const xrayChunk = { entry: path.join('functions', 'core', 'xray.ts'), file: xrayChunkFile } as const;

/** The shell command that builds the X-Ray chunk into a bundle's folder, with the project's own esbuild. */
export function xrayChunkCommand(projectRoot: string, outputDir: string): string {
  const esbuild = path.join(projectRoot, 'node_modules', '.bin', 'esbuild');
  const args = [
    path.join(projectRoot, xrayChunk.entry),
    '--bundle',
    '--platform=node',
    '--format=esm',
    `--banner:js=import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);`,
    `--target=${lambdaBundling.target}`,
    '--minify',
    '--log-level=warning',
    `--outfile=${path.join(outputDir, xrayChunk.file)}`,
  ];
  return [esbuild, ...args].map((arg) => JSON.stringify(arg)).join(' ');
}
