import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Construct } from 'constructs';
import { buildDashboard } from '../dashboard/build';
import type { FunctionName } from '../functions/routes';
import { functionEntries, lambdaBundling, xrayChunkCommand } from './bundling';

const projectRoot = fileURLToPath(new URL('..', import.meta.url));

/**
 * Where the service's code comes from when it is synthesized in this repository:
 * each Lambda bundled from its source by esbuild, the dashboard built at synth.
 * The construct package replaces this module with construct/src/code.ts, which
 * points at the same bundles built ahead, at pack time (scripts/pack-construct.ts).
 */
export function serviceFunction(scope: Construct, id: string, name: FunctionName, props: lambda.FunctionOptions & { runtime: lambda.Runtime }): lambda.Function {
  return new NodejsFunction(scope, id, {
    ...props,
    entry: path.join(projectRoot, functionEntries[name]),
    handler: 'handler',
    projectRoot,
    depsLockFilePath: path.join(projectRoot, 'package-lock.json'),
    bundling: {
      forceDockerBundling: false,
      logLevel: LogLevel.WARNING,
      format: OutputFormat.ESM,
      target: lambdaBundling.target,
      minify: lambdaBundling.minify,
      sourceMap: lambdaBundling.sourceMap,
      mainFields: [...lambdaBundling.mainFields],
      tsconfig: path.join(projectRoot, 'tsconfig.json'),
      externalModules: [...lambdaBundling.externalModules],
      commandHooks: {
        beforeBundling: () => [],
        beforeInstall: () => [],
        afterBundling: (_inputDir: string, outputDir: string) => [xrayChunkCommand(projectRoot, outputDir)],
      },
    },
  });
}

/** The dashboard's static files, built at synth like the Lambda bundles, so a fresh clone synthesizes offline with no prior build step. */
export function dashboardFiles(): string {
  return buildDashboard(mkdtempSync(path.join(tmpdir(), 'licensing-dashboard-')));
}
