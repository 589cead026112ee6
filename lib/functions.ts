import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { LogLevel as ServiceLogLevel } from '../functions/core/config';
import { groups, sideOf, type FunctionName } from '../functions/routes';
import { serviceFunction } from './code';
import type { ServiceData } from './data';
import { emailUse } from './permissions';
import { trustedViewerHeaders, type Settings } from './settings';

/**
 * What each group does with the signing key: the client signs answers (Decrypt) and makes the key of an
 * application made before signing (Encrypt); the app group makes such a key for /app/signing-key (Encrypt);
 * the integration group encrypts an owner's Stripe secrets and decrypts them to verify and list what Stripe sends;
 * the portal signs the license files it makes for customers and decrypts the restricted Stripe key billing opens
 * Stripe's customer portal with (Decrypt).
 */
const signingKeyUse: Partial<Record<FunctionName, readonly string[]>> = {
  client: ['kms:Encrypt', 'kms:Decrypt'],
  app: ['kms:Encrypt'],
  // Webhook secrets are encrypted under the same key and context as signing keys: the routes encrypt, the delivery function decrypts.
  webhook: ['kms:Encrypt'],
  delivery: ['kms:Decrypt'],
  integration: ['kms:Encrypt', 'kms:Decrypt'],
  portal: ['kms:Decrypt'],
};

/** `silent` writes nothing, so the strictest filter Lambda has is as good as any. */
const applicationLogLevels: Record<ServiceLogLevel, lambda.ApplicationLogLevel> = {
  debug: lambda.ApplicationLogLevel.DEBUG,
  info: lambda.ApplicationLogLevel.INFO,
  warn: lambda.ApplicationLogLevel.WARN,
  error: lambda.ApplicationLogLevel.ERROR,
  silent: lambda.ApplicationLogLevel.FATAL,
};

/**
 * Lambda's own lines: at INFO a start and a report line per invocation, about 380 bytes, 720 with a
 * trace header, more than a `/auth` logs of its own (docs/performance.md#cost-per-million-requests).
 * Only at log level `debug` are they kept; otherwise WARN keeps Lambda's warnings and drops those two.
 * Duration, memory and errors stay in the functions' CloudWatch metrics either way.
 */
export function systemLogLevel(settings: Pick<Settings, 'logLevel'>): lambda.SystemLogLevel {
  return settings.logLevel === 'debug' ? lambda.SystemLogLevel.INFO : lambda.SystemLogLevel.WARN;
}

/**
 * Node's options for every function. Source-mapped stack traces only at log level `debug`: with
 * `--enable-source-maps` Node reads each bundle's map when it loads the bundle, which made the
 * import 60–75 % slower. Otherwise the maps stay beside the code for `npm run symbolicate`
 * (docs/operations.md#reading-a-stack-trace). The benchmark reads these from the synthesized
 * functions, so it times each bundle under the options deployed.
 */
export function nodeOptions(settings: Pick<Settings, 'logLevel'>): { NODE_OPTIONS?: string } {
  return settings.logLevel === 'debug' ? { NODE_OPTIONS: '--enable-source-maps' } : {};
}

/** How long each function may run, and which reserved-concurrency setting is its (none: the function reserves nothing). */
function sizing(name: FunctionName, settings: Settings): { timeout: Duration; reservedConcurrency: number } {
  switch (name) {
    case 'client':
      return { timeout: Duration.seconds(10), reservedConcurrency: settings.clientReservedConcurrency };
    case 'authorizer':
      return { timeout: Duration.seconds(10), reservedConcurrency: settings.authorizerReservedConcurrency };
    case 'events':
      return { timeout: Duration.minutes(1), reservedConcurrency: 0 };
    case 'openapi':
      return { timeout: Duration.seconds(10), reservedConcurrency: 0 };
    case 'delivery':
      // Attempts of one batch run side by side, each bounded by 15 seconds.
      return { timeout: Duration.seconds(60), reservedConcurrency: 0 };
    default:
      // Management timeouts stay under API Gateway's 29-second integration limit; bulk operations need most of it.
      return { timeout: Duration.seconds(28), reservedConcurrency: settings.managementReservedConcurrency };
  }
}

/**
 * Whether a function is traced. With the HTTP API the client function is not: an HTTP API makes no
 * sampling decision, and Lambda samples an undecided request by a rule no one can set (the first
 * each second and 5 % of the rest), which would cost $0.25 per million client requests, a quarter
 * of what that API charges (docs/deployment.md, "Two front doors for client routes").
 */
export function traced(name: FunctionName, settings: Pick<Settings, 'tracing' | 'clientApi'>): boolean {
  return settings.tracing && !(name === 'client' && settings.clientApi === 'http');
}

/** The function names in the order the stack has always made them. */
export const functionNames: readonly FunctionName[] = [...groups, 'authorizer', 'events', 'openapi', 'delivery'];

export interface ServiceFunctionsProps {
  settings: Settings;
  data: ServiceData;
}

/**
 * One Lambda per route group of functions/routes.ts, the API-key authorizer, the
 * events consumer and the OpenAPI document's, each with a log group and a role of
 * its own that grants what lib/permissions.ts lists for it and nothing more.
 */
export class ServiceFunctions extends Construct {
  readonly functions: Record<FunctionName, lambda.Function>;

  constructor(scope: Construct, id: string, props: ServiceFunctionsProps) {
    super(scope, id);
    this.functions = Object.fromEntries(functionNames.map((name) => [name, this.createFunction(name, props)])) as Record<FunctionName, lambda.Function>;
  }

  /** Sets `MANAGEMENT_CORS_ORIGIN` on every management function. */
  setManagementCorsOrigin(origin: string): void {
    for (const group of groups) {
      if (sideOf(group) === 'management') this.functions[group].addEnvironment('MANAGEMENT_CORS_ORIGIN', origin);
    }
  }

  /** Sets `PORTAL_URL` on every function of a route group: the portal's address, for the links in the emails they send. */
  setPortalUrl(url: string): void {
    for (const group of groups) this.functions[group].addEnvironment('PORTAL_URL', url);
  }

  private createFunction(name: FunctionName, { settings, data }: ServiceFunctionsProps): lambda.Function {
    const id = pascalCase(name);
    const { timeout, reservedConcurrency } = sizing(name, settings);
    const logGroup = new logs.LogGroup(this, `${id}Logs`, {
      retention: settings.logRetentionDays as logs.RetentionDays,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // Our own role instead of AWSLambdaBasicExecutionRole: it may write to its one log group, nowhere else.
    const role = new iam.Role(this, `${id}Role`, { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
    logGroup.grantWrite(role);
    const keyActions = signingKeyUse[name];
    const tracing = traced(name, settings);
    const fn = serviceFunction(this, `${id}Function`, name, {
      role,
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: settings.lambdaMemoryMb,
      timeout,
      // Caps what a flood of one kind of request can take of the account's concurrency, and keeps that much for it.
      reservedConcurrentExecutions: reservedConcurrency > 0 ? reservedConcurrency : undefined,
      logGroup,
      // Active tracing also grants the role xray:PutTraceSegments and xray:PutTelemetryRecords.
      tracing: tracing ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED,
      // Platform lines become JSON with the request ID, like the service's own lines.
      loggingFormat: lambda.LoggingFormat.JSON,
      // With JSON logs Lambda filters application lines by their level itself (INFO unless told): it must pass what LOG_LEVEL keeps.
      applicationLogLevelV2: applicationLogLevels[settings.logLevel],
      systemLogLevelV2: systemLogLevel(settings),
      environment: {
        TABLE_NAME: data.table.tableName,
        LOG_LEVEL: settings.logLevel,
        TRUSTED_VIEWER_HEADERS: trustedViewerHeaders(settings).join(','),
        BCRYPT_COST: String(settings.bcryptCost),
        CACHE_TTL_SECONDS: String(settings.cacheTtlSeconds),
        DEBUG: String(settings.debug),
        TRACING: String(tracing),
        ...(keyActions ? { SIGNING_KMS_KEY_ID: data.signingKey.keyArn } : {}),
        ...(settings.sesIdentity && emailUse[name] ? { SES_IDENTITY: settings.sesIdentity } : {}),
        ...nodeOptions(settings),
      },
    });
    data.grantTableAccess(role, name);
    if (keyActions) data.grantSigningKeyUse(role, keyActions);
    if (settings.sesIdentity && emailUse[name] === 'send') {
      role.addToPolicy(new iam.PolicyStatement({ actions: ['ses:SendEmail'], resources: [sesIdentityArn(this, settings.sesIdentity)] }));
    }
    return fn;
  }
}

/** The ARN of an SES identity of the stack's account and region. */
export function sesIdentityArn(scope: Construct, identity: string): string {
  return Stack.of(scope).formatArn({ service: 'ses', resource: 'identity', resourceName: identity });
}

export function pascalCase(name: string): string {
  return `${name.charAt(0).toUpperCase()}${name.slice(1)}`;
}
