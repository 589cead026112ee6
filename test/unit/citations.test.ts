import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeCitation, isScanned, scanRepository, trackedFiles, uncitable } from '../support/citations';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const repository = { root, files: trackedFiles(root) };

const found = (file: string, text: string) => uncitable(repository, file, text).map(describeCitation);

describe('citations', () => {
  it('scan every tracked text file that a reader reads: code, docs, JSON (the OpenAPI document), npm and CI settings', () => {
    const scanned = repository.files.filter(isScanned);
    expect(scanned).toEqual(expect.arrayContaining(['.ci/run', 'docs/openapi.json', 'docs/client-api.md', 'package.json', 'cdk.json', 'functions/routes.ts']));
    expect(scanned).not.toContain('package-lock.json');
    expect(scanned).not.toContain('test/unit/citations.test.ts');
    expect(['.npmrc', 'scripts/deploy.sh', 'docs/examples/verify_answer.py', '.github/workflows/ci.yml', 'dashboard/src/ui.tsx'].filter(isScanned)).toHaveLength(5);
  });

  it('every comment, doc and OpenAPI description cites only files of the repository, and no outside document', () => {
    expect(scanRepository(root).map(describeCitation)).toEqual([]);
  });

  it('report a missing file by file:line, and pass files that exist (relative to the citing file, the root, or by a unique path suffix)', () => {
    const text = [
      '/**',
      ' * See docs/client-api.md#post-auth and ./routes.ts, data/keys.ts, keys.ts,',
      ' * and the import-style ../data/keys.js.',
      ' */',
      'const a = 1; // docs/no-such-page.md says so',
      "const b = 'docs/also-missing.md'; // a string of code is not a citation",
      '/* docs/client-api.md#no-such-heading */',
      '// docs/client-api.md, "POST /auth" holds; docs/management-api.md, "No such section" does not',
    ].join('\n');
    expect(found('functions/example.ts', text)).toEqual([
      'functions/example.ts:5: docs/no-such-page.md (no such file in the repository)',
      'functions/example.ts:7: docs/client-api.md#no-such-heading (no heading #no-such-heading in docs/client-api.md)',
      'functions/example.ts:8: docs/management-api.md, "No such section" (no heading #no-such-section in docs/management-api.md)',
    ]);
  });

  it('leave URLs, method calls, generated output and globs alone', () => {
    const text = [
      '// https://example.com/spec/missing.md and response.json() and test/**/*.test.ts',
      '// bench/results.json is written by the bench; config.json by whoever serves the dashboard',
    ].join('\n');
    expect(found('scripts/example.ts', text)).toEqual([]);
  });

  it('report outside documents in comments, strings, docs, JSON and shell comments', () => {
    expect(found('lib/example.ts', `// extensions.md section 2\nit('spec 4.3 headers', () => {});`)).toEqual([
      `lib/example.ts:1: extensions.md (a document outside the repository)`,
      'lib/example.ts:2: spec 4.3 (a document outside the repository)',
    ]);
    expect(found('docs/page.md', `Intro.\n\nAs api-decisions.md and the spec's order say.`)).toEqual([
      `docs/page.md:3: api-decisions.md (a document outside the repository)`,
      "docs/page.md:3: the spec's (a document outside the repository)",
    ]);
    expect(found('docs/openapi.json', `{\n  "description": "The order of spec § 7 (DESIGN.md)"\n}`)).toEqual([
      'docs/openapi.json:2: spec § 7',
      `docs/openapi.json:2: DESIGN.md`,
    ].map((line) => `${line} (a document outside the repository)`));
    expect(found('.npmrc', `# see ../shared/notes\njson=false`)).toEqual(['.npmrc:1: ../shared (a document outside the repository)']);
    expect(found('functions/data/db.ts', `// the clock of ../shared/clock.ts\nimport { clock } from '../shared/clock';`)).toEqual([]);
  });

  it('report a step of an unnamed plan in code, but not a step of a named docs page, nor a page numbering its own steps', () => {
    expect(found('functions/example.ts', '/** Step 6: read again. */\n/** Check 6 of docs/client-api.md#post-auth: step 6 there. */')).toEqual([
      'functions/example.ts:1: Step 6 (a document outside the repository)',
    ]);
    expect(found('docs/deployment.md', 'the cache of step 2')).toEqual([]);
  });
});
