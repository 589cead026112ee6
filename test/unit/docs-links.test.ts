import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { anchorsOf } from '../support/citations';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** README.md, every page under docs/, and every README.md under clients/: found when the test runs, so pages added later are checked too. */
function markdownFiles(): string[] {
  const under = (dir: string, keep: (name: string) => boolean) =>
    existsSync(join(root, dir))
      ? readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
          .filter((path) => !path.split(/[\\/]/).includes('node_modules') && keep(path.split(/[\\/]/).pop()!))
          .map((path) => join(dir, path))
      : [];
  return ['README.md', ...under('docs', (name) => name.endsWith('.md')), ...under('clients', (name) => name === 'README.md')].sort();
}

/** The text a reader sees as prose: fenced blocks and inline code hold examples, not links. */
function withoutCode(markdown: string): string {
  return markdown.replace(/^\s*```[\s\S]*?^\s*```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** Inline links and images `[text](target "title")`, and reference definitions `[label]: target`. */
function linksOf(markdown: string): string[] {
  const prose = withoutCode(markdown);
  const inline = [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]!);
  const references = [...prose.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)].map((match) => match[1]!);
  return [...inline, ...references];
}

/** Why a link of `file` (whose text is `markdown`) does not resolve, or undefined when it does. */
function brokenReason(file: string, markdown: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
    if (!/^https?:\/\//i.test(target)) return 'only http(s) links may leave the repository';
    try {
      const url = new URL(target);
      return url.hostname.includes('.') ? undefined : 'no host';
    } catch {
      return 'not a URL';
    }
  }
  const [path = '', anchor] = target.split('#', 2) as [string, string | undefined];
  if (path === '') return anchorsOf(markdown).has(decodeURIComponent(anchor!)) ? undefined : `no heading #${anchor} in this page`;
  const resolved = resolve(root, dirname(file), decodeURIComponent(path));
  if (!resolved.startsWith(root)) return 'leaves the repository';
  if (!existsSync(resolved)) return 'no such file or directory';
  if (anchor === undefined) return undefined;
  if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) return 'an anchor into something that is not a markdown file';
  return anchorsOf(readFileSync(resolved, 'utf8')).has(decodeURIComponent(anchor)) ? undefined : `no heading #${anchor} in ${relative(root, resolved)}`;
}

function brokenLinks(file: string, markdown: string): string[] {
  return linksOf(markdown).flatMap((target) => {
    const reason = brokenReason(file, markdown, target);
    return reason ? [`${file}: (${target}) ${reason}`] : [];
  });
}

const read = (file: string) => readFileSync(join(root, file), 'utf8');

describe('documentation links', () => {
  const files = markdownFiles();

  it('covers the README and the docs pages', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/README.md', 'docs/client-api.md', 'docs/management-api.md', 'docs/verifying-answers.md']));
    expect(linksOf(read('README.md'))).toEqual(expect.arrayContaining(['docs/client-api.md', 'docs/management-api.md', 'docs/development.md#requirements']));
  });

  it.each(files)('%s: every relative link and anchor resolves, every external link is a well-formed http(s) URL', (file) => {
    expect(brokenLinks(file, read(file))).toEqual([]);
  });

  it('notices a broken file, a broken anchor and a malformed URL', () => {
    const page = [
      '# A page',
      '[ok](#a-page) [ok](docs/client-api.md#post-auth) [ok](docs/) [ok](https://github.com/leeoniya/uPlot)',
      '[gone](docs/no-such-page.md) [gone](#no-such-heading) [gone](docs/client-api.md#no-such-heading) [bad](https://) [bad](ftp://example.com/x)',
      '`[not a link](nowhere.md)`',
    ].join('\n');
    expect(brokenLinks('README.md', page).map((line) => line.replace(/\) .*/, ')'))).toEqual([
      'README.md: (docs/no-such-page.md)',
      'README.md: (#no-such-heading)',
      'README.md: (docs/client-api.md#no-such-heading)',
      'README.md: (https://)',
      'README.md: (ftp://example.com/x)',
    ]);
  });
});

describe('README', () => {
  const readme = read('README.md');

  it('fits on a newcomer screen: under 8 KB', () => {
    expect(Buffer.byteLength(readme, 'utf8')).toBeLessThan(8192);
  });

  it('gives the two commands in its first 40 lines', () => {
    const top = readme.split('\n').slice(0, 40).join('\n');
    expect(top).toContain('npm ci && npm start');
    expect(top).toContain('npm ci && npm test');
  });
});

describe('docs pages', () => {
  it('send the reader after CDK settings to the stack settings, not to the environment variables', () => {
    expect(read('docs/deployment.md')).toMatch(/keep them in `cdk\.json`, see\s+\[[^\]]+\]\(configuration\.md#stack-settings-cdk-context\)/);
  });

  it('keep the bench markers that `npm run bench -- --update-docs` writes between', () => {
    const performance = read('docs/performance.md');
    const [start, end] = [performance.indexOf('<!-- bench:start -->'), performance.indexOf('<!-- bench:end -->')];
    expect(start).toBeGreaterThanOrEqual(0);
    expect(end).toBeGreaterThan(start);
  });
});
