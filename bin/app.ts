import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { LicensingStack } from '../lib/licensing-stack';
import { readSettings, SettingsError } from '../lib/settings';

const app = new App();
try {
  const settings = readSettings((key) => app.node.tryGetContext(key));
  new LicensingStack(app, `Licensing-${settings.stage}`, {
    settings,
    description: `Software licensing service (${settings.stage})`,
    // Unset until deploy time: synth needs no credentials, and `cdk deploy` fills in the caller's account and region.
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  });
} catch (error) {
  // A wrong setting is the owner's to fix, not ours to debug: its one line, without a stack trace.
  if (!(error instanceof SettingsError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}

Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
