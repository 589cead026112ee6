import { execSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AssetHashType, type ILocalBundling } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { buildSync } from 'esbuild';
import { buildDashboard } from '../dashboard/build';
import { buildPortal } from '../portal/build';
import type { FunctionName } from '../functions/routes';
import { functionEntries, lambdaBuildOptions, xrayChunkCommand } from './bundling';

const projectRoot = fileURLToPath(new URL('..', import.meta.url));

/**
 * Where the service's code comes from when it is synthesized in this repository:
 * each Lambda bundled from its source by esbuild at synth, on this machine, the
 * dashboard built at synth. esbuild runs through its API rather than through
 * NodejsFunction, whose single output file leaves no room for the chunks a
 * bundle loads on first need (lib/bundling.ts). The construct package replaces
 * this module with construct/src/code.ts, which points at the same bundles
 * built ahead, at pack time (scripts/pack-construct.ts).
 */
export function serviceFunction(scope: Construct, id: string, name: FunctionName, props: lambda.FunctionOptions & { runtime: lambda.Runtime }): lambda.Function {
  const code = lambda.Code.fromAsset(projectRoot, {
    // The hash of what was built, as NodejsFunction does: hashing the source would read the whole project, node_modules included.
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never used: local bundling always succeeds or throws. CDK requires an image all the same.
      image: props.runtime.bundlingImage,
      local: new LocalBundling(functionEntries[name]),
    },
  });
  return new lambda.Function(scope, id, { ...props, code, handler: 'index.handler' });
}

/**
 * esbuild on this machine. CDK reuses the output of a bundling whose options
 * serialize alike: `entry` is data, so each function's options differ.
 */
class LocalBundling implements ILocalBundling {
  constructor(readonly entry: string) {}

  tryBundle(outputDir: string): boolean {
    buildSync(lambdaBuildOptions(projectRoot, this.entry, outputDir));
    execSync(xrayChunkCommand(projectRoot, outputDir), { stdio: ['ignore', 'ignore', 'inherit'] });
    return true;
  }
}

/** The dashboard's static files, built at synth like the Lambda bundles, so a fresh clone synthesizes offline with no prior build step. */
export function dashboardFiles(): string {
  return buildDashboard(mkdtempSync(path.join(tmpdir(), 'licensing-dashboard-')));
}

/** The customers' portal's static files, built at synth like the dashboard's. */
export function portalFiles(): string {
  return buildPortal(mkdtempSync(path.join(tmpdir(), 'licensing-portal-')));
}
