import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Subscription } from '#data/model/subscription';
import { machineFingerprint } from '../../clients/app-typescript/src/machine-id';
import { loadAnswerVectors } from '../support/answer-vectors';
import { describeNativeExamples, describeNativeLicenseFiles, describeNativeLicenseFilesOnService } from '../support/native-license-files';
import { seedLicense, seedSubscription } from '../support/fixtures';
import { runProgram as run, type Ran } from '../support/run-program';
import { startSteeredService, type SteeredService } from '../support/steered-service';

/**
 * The C# library (clients/csharp) on Mono: the C library built once as the
 * shared liblicensing it loads (and installed as the CMake package that another
 * project finds, as clients/c/README.md says), the library compiled alone with
 * Mono's mcs (warnings as errors), its own suite against the local server and the
 * steered proxy, the license-file and trial cases every native library shares
 * (test/support/native-license-files.ts) through its driver, against a signed
 * stand-in and against the local server, and the README's examples compiled
 * against the library and run.
 */

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const project = join(root, 'clients', 'csharp');
const work = mkdtempSync(join(tmpdir(), 'licensing-csharp-'));
const native = join(work, 'native');
const sources = ['ActivationRequestResult.cs', 'Heartbeat.cs', 'LicenseClient.cs', 'LicenseException.cs', 'LicenseResult.cs', 'Native.cs'].map((file) => join(project, 'src', file));

/**
 * The recorded answers as blocks of `name<TAB>base64 of the value` lines, which
 * the suite reads without a JSON library (Mono's base profile has none); a
 * field that is absent or null has no value.
 */
function flattenAnswers(): string {
  const vectors = loadAnswerVectors();
  const line = (name: string, value: string | number | null | undefined) => (value === null || value === undefined ? name : `${name}\t${Buffer.from(String(value)).toString('base64')}`);
  const key = [line('public_key_pem', vectors.public_key_pem)];
  const answers = vectors.answers.map((vector) => {
    const { expect } = vector;
    const outcome = 'message' in expect ? `ok:${expect.message}` : 'refused' in expect ? `refused:${expect.refused}` : `code:${expect.code}`;
    return [
      line('answer', vector.name),
      line('app_id', vectors.app_id),
      ...key,
      line('nonce', vector.request.nonce),
      line('content_digest', vector.request.content_digest),
      line('license', vector.request.license),
      line('status', vector.answer.status),
      ...['content-digest', 'signature-input', 'signature'].map((name) => line(name, vector.answer.headers[name])),
      line('body', vector.answer.body),
      line('expect', outcome),
    ].join('\n');
  });
  const tokens = vectors.tokens.map((vector) =>
    [
      line('token_name', vector.name),
      line('app_id', vector.app_id),
      ...key,
      line('token', vector.token),
      line('license', vector.license),
      line('hwid', vector.hwid),
      line('nonce', vector.nonce),
      line('now', vector.now),
      line('expect', 'ok' in vector.expect ? `ok:${vector.license}` : `code:${vector.expect.code}`),
    ].join('\n'),
  );
  return `${[...answers, ...tokens].join('\n\n')}\n`;
}

let service: SteeredService;
let subscription: Subscription;
const steps: Record<string, Ran> = {};

beforeAll(async () => {
  service = await startSteeredService();
  subscription = await seedSubscription(service.env.deps, service.owner, { usage_limits: { exports: { limit: 10, period: 'none', overage: 0 } } });
  const build = async (name: string, command: string, args: string[], timeout: number) => {
    steps[name] = await run(command, args, { timeout });
    return steps[name].code === 0;
  };
  const built =
    (await build('configure', 'cmake', ['-S', join(root, 'clients', 'c'), '-B', native, '-DCMAKE_BUILD_TYPE=Release', '-DBUILD_SHARED_LIBS=ON', '-DLICENSING_WARNINGS_AS_ERRORS=ON'], 120_000)) &&
    (await build('native', 'cmake', ['--build', native, '--parallel', '2'], 300_000));
  if (built) {
    // The README's way to use the C library from another CMake project: installed, then found as a package.
    const consumer = join(work, 'consumer');
    mkdirSync(consumer);
    copyFileSync(join(root, 'clients', 'c', 'examples', 'check_license.c'), join(consumer, 'check_license.c'));
    writeFileSync(
      join(consumer, 'CMakeLists.txt'),
      'cmake_minimum_required(VERSION 3.16)\nproject(my_program C)\nfind_package(licensing REQUIRED)\nadd_executable(my_program check_license.c)\ntarget_link_libraries(my_program PRIVATE licensing::licensing)\n',
    );
    (await build('install', 'cmake', ['--install', native, '--prefix', join(work, 'prefix')], 120_000)) &&
      (await build('find_package', 'cmake', ['-S', consumer, '-B', join(consumer, 'build'), `-DCMAKE_PREFIX_PATH=${join(work, 'prefix')}`], 120_000)) &&
      (await build('consumer', 'cmake', ['--build', join(consumer, 'build')], 120_000));
    await build('library', 'mcs', ['-target:library', '-warnaserror+', `-out:${join(work, 'Licensing.dll')}`, ...sources], 120_000);
    await build('tests', 'mcs', ['-warnaserror+', `-out:${join(work, 'LicenseClientTests.exe')}`, ...sources, join(project, 'tests', 'LicenseClientTests.cs')], 120_000);
    await build('driver', 'mcs', ['-warnaserror+', `-r:${join(work, 'Licensing.dll')}`, `-out:${join(work, 'LicenseFilesDriver.exe')}`, join(project, 'tests', 'LicenseFilesDriver.cs')], 120_000);
    for (const example of ['CheckLicense', 'FloatingSeat', 'AirGapped', 'Trial']) {
      await build(example, 'mcs', ['-warnaserror+', `-r:${join(work, 'Licensing.dll')}`, `-out:${join(work, `${example}.exe`)}`, join(project, 'examples', `${example}.cs`)], 120_000);
    }
  }
  writeFileSync(join(work, 'answers.flat'), flattenAnswers());
}, 600_000);

afterAll(async () => {
  await service?.close();
  rmSync(work, { recursive: true, force: true });
});

// Mono finds liblicensing.so through the loader's path, as a program's launcher would set it.
const mono = (program: string, args: string[], env: Record<string, string>, timeout: number) =>
  run('mono', ['--debug', join(work, program), ...args], { env: { ...env, LD_LIBRARY_PATH: native }, timeout });

/** What the examples read: a home folder for their state, the service, the application and its key. */
const exampleEnv = (home: string) => ({
  HOME: home,
  LICENSING_URL: service.env.server.url,
  LICENSING_APP_ID: service.owner.app_id,
  LICENSING_PUBLIC_KEY: service.key.public_key_pem,
});

describe('the C# library (clients/csharp)', () => {
  it('builds: liblicensing shared with -Werror and installed as a CMake package another project finds, the library alone and its suite with mcs, warnings as errors', () => {
    for (const [name, step] of Object.entries(steps)) expect([name, step.code, step.stderr]).toEqual([name, 0, '']);
    expect(Object.keys(steps)).toEqual(['configure', 'native', 'install', 'find_package', 'consumer', 'library', 'tests', 'driver', 'CheckLicense', 'FloatingSeat', 'AirGapped', 'Trial']);
    expect(existsSync(join(native, 'liblicensing.so'))).toBe(true);
  });

  it('check_license.c, built by another CMake project against the installed package, runs licensed', async () => {
    const license = await seedLicense(service.env.deps, subscription);
    const ran = await run(join(work, 'consumer', 'build', 'my_program'), [license.key], {
      env: { ...exampleEnv(mkdtempSync(join(work, 'home-'))), LD_LIBRARY_PATH: join(work, 'prefix', 'lib') },
      timeout: 60_000,
    });
    expect(ran).toMatchObject({ code: 0, stderr: '' });
    expect(ran.stdout).toMatch(/^Licensed \(.+\), valid until /);
  }, 120_000);

  it('passes its own suite on Mono against the local server and the steered proxy', async () => {
    const ran = await mono(
      'LicenseClientTests.exe',
      [],
      { ...service.variables, LICENSING_EXPECTED_MACHINE_ID: await machineFingerprint(service.owner.app_id), LICENSING_ANSWERS_FLAT: join(work, 'answers.flat') },
      300_000,
    );
    if (ran.code !== 0) throw new Error(`the C# suite failed (${ran.code}):\n${ran.stdout}\n${ran.stderr}`);
    expect(ran.stdout).toMatch(/^9 passed, 0 failed$/m);
    const vectors = loadAnswerVectors();
    expect(ran.stdout.match(/^ {4}answer \S+: /gm)).toHaveLength(vectors.answers.length);
    expect(ran.stdout.match(/^ {4}token \S+: /gm)).toHaveLength(vectors.tokens.length);
  }, 320_000);
});

describe('the examples of clients/csharp/README.md', () => {
  const readme = readFileSync(join(project, 'README.md'), 'utf8');

  it('are the very files the test compiled', () => {
    for (const example of ['CheckLicense.cs', 'FloatingSeat.cs']) expect(readme).toContain(readFileSync(join(project, 'examples', example), 'utf8'));
  });

  it('CheckLicense runs licensed, keeps its offline token in the home folder, and refuses an unknown key', async () => {
    const home = mkdtempSync(join(work, 'home-'));
    const license = await seedLicense(service.env.deps, subscription);
    const licensed = await mono('CheckLicense.exe', [license.key], exampleEnv(home), 60_000);
    expect(licensed).toMatchObject({ code: 0, stderr: '' });
    expect(licensed.stdout).toMatch(/^Licensed \(.+\), valid until \d{4}-\d\d-\d\dT.+\n$/);
    expect(existsSync(join(home, '.example-app', 'offline-token.json'))).toBe(true);

    const refused = await mono('CheckLicense.exe', ['NO-SUCH-KEY'], exampleEnv(home), 60_000);
    expect(refused).toMatchObject({ code: 1, stdout: '', stderr: 'This copy is not licensed: LICENSE_NOT_FOUND\n' });
  }, 150_000);

  it('FloatingSeat holds the seat, counts an export and gives the seat back; with every seat taken it says so', async () => {
    const home = mkdtempSync(join(work, 'home-'));
    const license = await seedLicense(service.env.deps, subscription, { hwid_lock: true, max_devices: 1, lease_seconds: 600 });
    const held = await mono('FloatingSeat.exe', [license.key], exampleEnv(home), 60_000);
    expect(held).toMatchObject({ code: 0, stderr: '' });
    expect(held.stdout).toMatch(/^Seat held until \d{4}-\d\d-\d\dT.+\nExport counted, 9 left\n$/);
    const record = (await service.env.post('/license/get', { license_key: license.key }, service.owner.auth)).body.data;
    expect(record.leases).toEqual([]);

    await service.env.post('/auth', { app_id: service.owner.app_id, license: license.key, hwid: 'another-desk' });
    const full = await mono('FloatingSeat.exe', [license.key], exampleEnv(home), 60_000);
    expect(full.code).toBe(1);
    expect(full.stderr).toMatch(/^Every seat is in use \(\{"max_devices":1,"next_seat_at":".+"\}\)\n$/);
  }, 150_000);
});

describeNativeLicenseFiles('C#', () => ({
  run: (args, env) => mono('LicenseFilesDriver.exe', args, env, 60_000),
  check: (ran) => expect(ran.stderr).toBe(''),
}));

describeNativeLicenseFilesOnService('C#', () => ({ run: (args, env) => mono('LicenseFilesDriver.exe', args, env, 60_000), check: (ran) => expect(ran.stderr).toBe('') }), () => service);

describeNativeExamples('C#', () => ({
  airGapped: (args, env) => mono('AirGapped.exe', args, env, 60_000),
  trial: (env) => mono('Trial.exe', [], env, 60_000),
  readme: join(project, 'README.md'),
  sources: [join(project, 'examples', 'AirGapped.cs'), join(project, 'examples', 'Trial.cs')],
}));
