import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
 * The C library (clients/c): built once with CMake, static, with -Wall -Wextra
 * -Werror and under AddressSanitizer and UndefinedBehaviorSanitizer; then its own
 * test programs (C, and C++ over licensing.hpp) against the local server on
 * loopback and the steered proxy (tampered, replayed, relayed, unsigned and dark
 * answers), the license-file and trial cases every native library shares
 * (test/support/native-license-files.ts) through its driver, against a signed
 * stand-in and against the local server, and the README's examples as a
 * developer builds them.
 */

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const project = join(root, 'clients', 'c');
const work = mkdtempSync(join(tmpdir(), 'licensing-c-'));
const build = join(work, 'build');

const sanitizerOptions = {
  ASAN_OPTIONS: 'detect_leaks=1:halt_on_error=1:strict_string_checks=1',
  UBSAN_OPTIONS: 'print_stacktrace=1:halt_on_error=1',
};
const findings = /AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:/;

let service: SteeredService;
let subscription: Subscription;
let configured: Ran;
let built: Ran;

beforeAll(async () => {
  service = await startSteeredService();
  subscription = await seedSubscription(service.env.deps, service.owner, { usage_limits: { exports: { limit: 10, period: 'none', overage: 0 } } });
  configured = await run(
    'cmake',
    ['-S', project, '-B', build, '-DCMAKE_BUILD_TYPE=Debug', '-DBUILD_SHARED_LIBS=OFF', '-DLICENSING_TESTS=ON', '-DLICENSING_SANITIZE=ON', '-DLICENSING_WARNINGS_AS_ERRORS=ON'],
    { timeout: 120_000 },
  );
  built = configured.code === 0 ? await run('cmake', ['--build', build, '--parallel', '2'], { timeout: 400_000 }) : configured;
}, 600_000);

afterAll(async () => {
  await service?.close();
  rmSync(work, { recursive: true, force: true });
});

const results = (stdout: string) => {
  const match = /^(\d+) passed, (\d+) failed$/m.exec(stdout);
  return { passed: Number(match?.[1] ?? 0), failed: Number(match?.[2] ?? -1) };
};

describe('the C library (clients/c)', () => {
  it('builds static with -Wall -Wextra -Werror under AddressSanitizer and UndefinedBehaviorSanitizer', () => {
    expect(configured.stderr).toBe('');
    expect(built).toMatchObject({ code: 0, stderr: '' });
    expect(built.stdout).not.toMatch(/warning/i);
    for (const program of ['licensing_tests', 'licensing_cpp_tests', 'check_license', 'floating_seat', 'license_files_driver', 'air_gapped', 'trial']) expect(existsSync(join(build, 'tests', program))).toBe(true);
  });

  it('passes its own C suite against the local server and the steered proxy, with no sanitizer finding', async () => {
    const ran = await run(join(build, 'tests', 'licensing_tests'), [], {
      timeout: 400_000,
      env: {
        ...service.variables,
        ...sanitizerOptions,
        LICENSING_EXPECTED_MACHINE_ID: await machineFingerprint(service.owner.app_id),
        LICENSING_ANSWERS_FILE: join(root, 'clients', 'testdata', 'answers.json'),
      },
    });
    if (ran.code !== 0) throw new Error(`licensing_tests failed (${ran.code}):\n${ran.stdout}\n${ran.stderr}`);
    expect(ran.stderr).not.toMatch(findings);
    expect(results(ran.stdout)).toEqual({ passed: 44, failed: 0 });
    // Every recorded case was decided, each as it expects.
    const vectors = loadAnswerVectors();
    expect(ran.stdout.match(/^ {4}answer \S+: /gm)).toHaveLength(vectors.answers.length);
    expect(ran.stdout.match(/^ {4}token \S+: /gm)).toHaveLength(vectors.tokens.length);
  }, 420_000);

  it('passes the C++ suite of licensing.hpp, with no sanitizer finding', async () => {
    const plain = await seedLicense(service.env.deps, subscription);
    const floating = await seedLicense(service.env.deps, subscription, { hwid_lock: true, max_devices: 1, lease_seconds: 60 });
    const ran = await run(join(build, 'tests', 'licensing_cpp_tests'), [], {
      timeout: 120_000,
      env: { ...service.variables, ...sanitizerOptions, LICENSING_LICENSE: plain.key, LICENSING_FLOATING_LICENSE: floating.key },
    });
    if (ran.code !== 0) throw new Error(`licensing_cpp_tests failed (${ran.code}):\n${ran.stdout}\n${ran.stderr}`);
    expect(ran.stderr).not.toMatch(findings);
    expect(results(ran.stdout)).toEqual({ passed: 3, failed: 0 });
  }, 150_000);
});

describe('the examples of clients/c/README.md', () => {
  const readme = readFileSync(join(project, 'README.md'), 'utf8');
  const example = (name: string) => readFileSync(join(project, 'examples', name), 'utf8');
  const programEnv = (home: string) => ({
    ...sanitizerOptions,
    HOME: home,
    LICENSING_URL: service.env.server.url,
    LICENSING_APP_ID: service.owner.app_id,
    LICENSING_PUBLIC_KEY: service.key.public_key_pem,
  });

  it('are the very files the build compiled', () => {
    expect(readme).toContain(example('check_license.c'));
    expect(readme).toContain(example('floating_seat.cpp'));
  });

  it('check_license runs licensed, keeps its offline token in the home folder, and refuses an unknown key', async () => {
    const home = mkdtempSync(join(work, 'home-'));
    const license = await seedLicense(service.env.deps, subscription);
    const licensed = await run(join(build, 'tests', 'check_license'), [license.key], { env: programEnv(home), timeout: 60_000 });
    expect(licensed).toMatchObject({ code: 0, stderr: '' });
    expect(licensed.stdout).toMatch(/^Licensed \(.+\), valid until \d{4}-\d\d-\d\dT.+\n$/);
    expect(existsSync(join(home, '.example-app', 'offline-token.json'))).toBe(true);

    const refused = await run(join(build, 'tests', 'check_license'), ['NO-SUCH-KEY'], { env: programEnv(home), timeout: 60_000 });
    expect(refused).toMatchObject({ code: 1, stdout: '', stderr: 'This copy is not licensed: LICENSE_NOT_FOUND\n' });
  }, 150_000);

  it('floating_seat holds the seat, counts an export and gives the seat back; with every seat taken it says so', async () => {
    const home = mkdtempSync(join(work, 'home-'));
    const license = await seedLicense(service.env.deps, subscription, { hwid_lock: true, max_devices: 1, lease_seconds: 600 });
    const held = await run(join(build, 'tests', 'floating_seat'), [license.key], { env: programEnv(home), timeout: 60_000 });
    expect(held).toMatchObject({ code: 0, stderr: '' });
    expect(held.stdout).toMatch(/^Seat held\nExport counted: \{"counter":"exports","used":1,.*\}\n$/);
    const record = (await service.env.post('/license/get', { license_key: license.key }, service.owner.auth)).body.data;
    expect(record.leases).toEqual([]);

    await service.env.post('/auth', { app_id: service.owner.app_id, license: license.key, hwid: 'another-desk' });
    const full = await run(join(build, 'tests', 'floating_seat'), [license.key], { env: programEnv(home), timeout: 60_000 });
    expect(full.code).toBe(1);
    expect(full.stderr).toMatch(/^Every seat is in use \(\{"max_devices":1,"next_seat_at":".+"\}\)\n$/);
  }, 150_000);
});

const sanitized = (program: string) => (args: string[], env: Record<string, string>) =>
  run(join(build, 'tests', program), args, { env: { ...sanitizerOptions, ...env }, timeout: 60_000 });

describeNativeLicenseFiles('C', () => ({
  run: sanitized('license_files_driver'),
  // Anything on stderr, a sanitizer's finding above all, fails the case.
  check: (ran) => expect(ran.stderr).toBe(''),
}));

describeNativeLicenseFilesOnService('C', () => ({ run: sanitized('license_files_driver'), check: (ran) => expect(ran.stderr).toBe('') }), () => service);

describeNativeExamples('C', () => ({
  airGapped: sanitized('air_gapped'),
  trial: (env) => sanitized('trial')([], env),
  readme: join(project, 'README.md'),
  sources: [join(project, 'examples', 'air_gapped.cpp'), join(project, 'examples', 'trial.c')],
}));
