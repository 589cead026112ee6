import * as path from 'node:path';
import type { BuildOptions } from 'esbuild';

/**
 * How every Lambda is bundled: the CDK stack hands these to NodejsFunction and
 * the benchmark builds with them, so the bundle measured is the bundle deployed.
 */
export const lambdaBundling = {
  format: 'esm',
  target: 'node22',
  minify: true,
  sourceMap: true,
  mainFields: ['module', 'main'],
  // The AWS SDK is bundled, not left to the runtime's copy: pinned versions, and a
  // faster cold start (the runtime's copy measured 25–43 ms slower to import).
  externalModules: [],
  // aws-xray-sdk-core is CommonJS and require()s Node's built-in modules, which an
  // ES module has no require() for: esbuild's shim would throw "Dynamic require of".
  banner: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
} as const;

/** The same bundling as esbuild options, for building outside CDK. */
export function esbuildOptions(projectRoot: string): BuildOptions {
  return {
    bundle: true,
    platform: 'node',
    format: lambdaBundling.format,
    target: lambdaBundling.target,
    minify: lambdaBundling.minify,
    sourcemap: lambdaBundling.sourceMap ? 'external' : false,
    mainFields: [...lambdaBundling.mainFields],
    external: [...lambdaBundling.externalModules],
    tsconfig: path.join(projectRoot, 'tsconfig.json'),
    banner: { js: lambdaBundling.banner },
  };
}
