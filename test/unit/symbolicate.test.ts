import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { lambdaBuildOptions } from '../../lib/bundling';
import { symbolicate } from '../../scripts/symbolicate';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

describe('npm run symbolicate', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'licensing-symbolicate-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('turns the positions of a bundle and of its chunks in a stack trace into the source files and lines', async () => {
    writeFileSync(join(dir, 'entry.ts'), "export async function handler() {\n  const { fail } = await import('./lazy');\n  return fail();\n}\n");
    writeFileSync(join(dir, 'lazy.ts'), "export function fail(): never {\n  throw new Error('boom');\n}\n");
    const code = join(dir, 'code');
    await build({ ...lambdaBuildOptions(projectRoot, relative(projectRoot, join(dir, 'entry.ts')), code), logLevel: 'silent' });
    // As the deployed functions run: no --enable-source-maps, so the trace names the minified files.
    const script = `import(${JSON.stringify(pathToFileURL(join(code, 'index.mjs')).href)}).then((m) => m.handler()).catch((error) => process.stdout.write(error.stack));`;
    const trace = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
    expect(trace).toMatch(/chunks\/[^:]+\.mjs:1:\d+/);
    const mapped = symbolicate(trace, code);
    expect(mapped).toMatch(/lazy\.ts:2:\d+/);
    expect(mapped).toMatch(/entry\.ts:3:\d+/);
    expect(mapped).not.toMatch(/\.mjs:\d+:\d+/);
  });

  it('leaves lines it has no map for as they are', () => {
    const trace = 'Error: boom\n    at fail (node:internal/x:1:2)\n    at /var/task/elsewhere.mjs:1:5';
    expect(symbolicate(trace, dir)).toBe(trace);
  });
});
