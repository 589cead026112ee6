import type { BuildOptions } from 'esbuild';

/**
 * How every Lambda is bundled. The CDK stack hands these to NodejsFunction and
 * the benchmark builds with them, so the bundle measured is the bundle deployed.
 */
const externalModules = ['@aws-sdk/*'];
/** Some bundled dependencies still call require(); ESM output needs it defined. */
const requireBanner = "import { createRequire as __createRequire } from 'module'; const require = __createRequire(import.meta.url);";

export const lambdaBundling = {
  target: 'node22',
  externalModules,
  requireBanner,
  mainFields: ['module', 'main'],
  esbuild: {
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    minify: true,
    sourcemap: 'external',
    external: externalModules,
    mainFields: ['module', 'main'],
    banner: { js: requireBanner },
    tsconfig: 'tsconfig.json',
  } satisfies BuildOptions,
};
