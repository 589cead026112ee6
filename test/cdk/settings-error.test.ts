import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

/** bin/app.ts as `cdk synth` runs it (cdk.json's app command), its context passed the way the CLI passes it. */
function synthApp(context: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
  const outDir = mkdtempSync(join(tmpdir(), 'licensing-bad-setting-'));
  try {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'bin/app.ts'], {
      cwd: projectRoot,
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, CDK_CONTEXT_JSON: JSON.stringify(context), CDK_OUTDIR: outDir },
    });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

describe('a wrong -c setting', () => {
  it.each([
    [{ stage: 'my_stage' }, /^context stage must be 1 to 64 letters, digits or "-" .*got "my_stage"$/],
    [{ bcryptCost: '3' }, /^context bcryptCost must be an integer from 4 to 15, got "3"$/],
    [{ endpointType: 'private' }, /^context endpointType must be one of edge, regional, got "private"$/],
  ])('%o stops the app with one line naming the setting and what it allows, and exit code 1', (context, message) => {
    const result = synthApp(context);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.split('\n').filter((line) => line !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
  }, 70_000);
});
