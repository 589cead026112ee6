import * as path from 'node:path';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type { FunctionName } from '../../functions/routes';
import type * as source from '../../lib/code';

/**
 * lib/code.ts as the package has it: the bundles scripts/pack-construct.ts built
 * beside this module (dist/lambda/<name>/, dist/dashboard/, dist/portal/), so an app that
 * installs the package needs neither esbuild nor this repository's sources.
 * The package is CommonJS, so its folder is __dirname.
 */
export const serviceFunction: typeof source.serviceFunction = (scope: Construct, id: string, name: FunctionName, props) =>
  new lambda.Function(scope, id, { ...props, code: lambda.Code.fromAsset(path.join(__dirname, 'lambda', name)), handler: 'index.handler' });

export const dashboardFiles: typeof source.dashboardFiles = () => path.join(__dirname, 'dashboard');

export const portalFiles: typeof source.portalFiles = () => path.join(__dirname, 'portal');
