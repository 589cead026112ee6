import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import ts from 'typescript';

/**
 * Finds citations a reader of the repository cannot follow: a file named in a
 * comment, a doc or a JSON string (the OpenAPI descriptions) that the repository
 * does not hold, and citations of documents that live outside it (the interface
 * rules are stated in docs/, see docs/development.md#conventions).
 */

export interface Citation {
  file: string;
  line: number;
  citation: string;
  reason: string;
}

/** A stretch of a file's text that a reader reads as prose, and the line it starts on. */
interface Passage {
  text: string;
  line: number;
  /** Prose (a comment, a doc, a JSON string): file names in it are citations. Code lines only get the outside-document checks. */
  prose: boolean;
}

const codeExtensions = new Set(['.ts', '.tsx', '.js', '.mjs', '.cjs']);
const hashCommentExtensions = new Set(['.sh', '.py', '.yml', '.yaml', '.npmrc', '.gitignore', '']);
const markdownExtensions = new Set(['.md']);
const jsonExtensions = new Set(['.json']);

/**
 * Generated text nobody writes by hand, and the scanner's own test, whose
 * synthetic inputs quote the citations it must report.
 */
const skipped = (file: string) => file === 'package-lock.json' || file.endsWith('/package-lock.json') || file === 'test/unit/citations.test.ts';

export function isScanned(file: string): boolean {
  if (skipped(file)) return false;
  const extension = extname(file);
  return codeExtensions.has(extension) || hashCommentExtensions.has(extension) || markdownExtensions.has(extension) || jsonExtensions.has(extension) || file === '.npmrc';
}

const linesBefore = (text: string, index: number) => text.slice(0, index).split('\n').length - 1;

/** Comments as prose (found by the TypeScript parser, so strings and regular expressions holding `//` are not comments); every other line as code. */
function codePassages(file: string, text: string): Passage[] {
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : file.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, kind);
  const ranges = new Map<number, ts.CommentRange>();
  const collect = (found: readonly ts.CommentRange[] | undefined) => found?.forEach((range) => ranges.set(range.pos, range));
  const visit = (node: ts.Node) => {
    collect(ts.getLeadingCommentRanges(text, node.getFullStart()));
    collect(ts.getTrailingCommentRanges(text, node.getEnd()));
    ts.forEachChild(node, visit);
  };
  visit(source);
  collect(ts.getLeadingCommentRanges(text, source.endOfFileToken.getFullStart()));
  collect(ts.getTrailingCommentRanges(text, 0));
  const comments = [...ranges.values()].sort((a, b) => a.pos - b.pos);
  const passages: Passage[] = comments.map((range) => ({ text: text.slice(range.pos, range.end), line: linesBefore(text, range.pos) + 1, prose: true }));
  let code = text;
  for (const range of comments) code = code.slice(0, range.pos) + text.slice(range.pos, range.end).replace(/[^\n]/g, ' ') + code.slice(range.end);
  code.split('\n').forEach((line, index) => passages.push({ text: line, line: index + 1, prose: false }));
  return passages;
}

/** `# ...` to the end of the line is prose (shell, Python, YAML, npm's ini files); the rest is code. */
function hashCommentPassages(text: string): Passage[] {
  return text.split('\n').flatMap((line, index) => {
    const comment = /(?:^|\s)#(?!!)(.*)$/.exec(line);
    if (!comment) return [{ text: line, line: index + 1, prose: false }];
    return [
      { text: comment[1]!, line: index + 1, prose: true },
      { text: line.slice(0, comment.index), line: index + 1, prose: false },
    ];
  });
}

export function passagesOf(file: string, text: string): Passage[] {
  const extension = extname(file);
  if (codeExtensions.has(extension)) return codePassages(file, text);
  if (markdownExtensions.has(extension) || jsonExtensions.has(extension)) return text.split('\n').map((line, index) => ({ text: line, line: index + 1, prose: true }));
  return hashCommentPassages(text);
}

/**
 * Documents that are not in the repository, however they are cited. A "step N"
 * of a code comment or string must say whose step it is (a page of docs/);
 * a markdown page numbers its own steps.
 */
const outsideDocuments: { pattern: RegExp; markdownToo: boolean; inRepository?: boolean }[] = [
  { pattern: /\bextensions\.md\b/gi, markdownToo: true },
  { pattern: /\bapi-decisions(?:\.md)?\b/gi, markdownToo: true },
  { pattern: /\bDESIGN\.md\b/g, markdownToo: true },
  { pattern: /\blicensing-service-spec(?:\.md)?\b/gi, markdownToo: true },
  { pattern: /\/work\/shared\b/g, markdownToo: true },
  // A shared folder beside the repository; a folder of the repository named shared (functions/shared) is no citation.
  { pattern: /(?:\.\.\/)+shared\b/g, markdownToo: true, inRepository: true },
  { pattern: /\bspec(?:ification)?\s+(?:§\s*)?\d+(?:\.\d+)*\b/gi, markdownToo: true },
  { pattern: /\bspec(?:ification)?\s*§|§\s*\d/gi, markdownToo: true },
  { pattern: /\bthe spec(?:['’]s)?\b|\bspec['’]s\b/gi, markdownToo: true },
  { pattern: /\bsteps?\s+\d+/gi, markdownToo: false },
];

/** A file path or name with an extension of a document or source file, not inside a URL. */
const fileName = /(?<![\w@/.:~$<{*-])((?:\.{1,2}\/)*(?:[\w-][\w.-]*\/)*\w[\w.-]*\.(?:md|ts|tsx|js|mjs|cjs|json|sh|py|ya?ml|html|css|png))(#[\w-]+)?(?![\w/(-]|\.\w)/g;
const url = /\b[a-z][a-z0-9+.-]*:\/\/[^\s)>\]"'`]*/gi;

export interface Repository {
  root: string;
  /** Every tracked file, relative to the root with `/`. */
  files: string[];
}

export function trackedFiles(root: string): string[] {
  return execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    .split('\0')
    .filter((file) => file !== '' && existsSync(join(root, file)));
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const slugOf = (title: string) => title.replace(/`/g, '').toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');

/** GitHub's heading anchors of a page, repeats numbered. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, title] of markdown.replace(/^\s*```[\s\S]*?^\s*```/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*$/gm)) {
    const slug = slugOf(title!);
    const count = seen.get(slug) ?? 0;
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
    seen.set(slug, count + 1);
  }
  return anchors;
}

/**
 * Names that look like files of the repository but are not meant to be: written
 * when the service is deployed or served, shipped by a dependency, or a product's name.
 */
const notTheRepositorys = new Set([
  'config.json', // the dashboard's settings, written by whoever serves it (docs/dashboard.md)
  'cdk-outputs.json', // written by `cdk deploy --outputs-file` (docs/deployment.md)
  'uplot.css', // uPlot's stylesheet, from its package
  'ipaddr.js', // a package's name
  'offline-token.json', // what the Go client writes in a program's state directory (clients/go/README.md)
  'Node.js',
  // What the app client libraries keep in a licensed program's state directory (clients/app-typescript/README.md#state)
  'offline-token.json',
  'activation-requests.json',
  'clock.json',
]);

const ignoredCache = new Map<string, boolean>();

/** Output the repository's .gitignore keeps out (bench results, built clients): cited as what a command writes. */
function ignored(root: string, path: string): boolean {
  const key = `${root}\0${path}`;
  if (!ignoredCache.has(key)) {
    let result = true;
    try {
      execFileSync('git', ['check-ignore', '-q', '--no-index', path], { cwd: root, stdio: 'ignore' });
    } catch {
      result = false;
    }
    ignoredCache.set(key, result);
  }
  return ignoredCache.get(key)!;
}

/** Why the file named `path` (cited by `file`) is not one of the repository's, or undefined when it is. */
function missingReason(repository: Repository, file: string, path: string, anchor: string | undefined): string | undefined {
  const tracked = new Set(repository.files);
  const names = new Set(repository.files.map((each) => basename(each)));
  // TypeScript's ESM imports name the emitted .js of a .ts file; the tracing bundle names its own xray.mjs.
  const sourceOf = (candidate: string) => [candidate, candidate.replace(/\.[mc]?js$/, '.ts'), candidate.replace(/\.js$/, '.tsx')];
  const relativeTo = (base: string) => resolve('/', base, path).slice(1);
  const candidates = path.includes('/') ? [relativeTo(dirname(file)), relativeTo('.')] : [path];
  const found = candidates
    .flatMap(sourceOf)
    .find((candidate) => (path.includes('/') ? tracked.has(candidate) || repository.files.some((each) => each.endsWith(`/${candidate}`)) : names.has(candidate)));
  if (!found) {
    if (notTheRepositorys.has(path) || candidates.some((candidate) => ignored(repository.root, candidate))) return undefined;
    return 'no such file in the repository';
  }
  if (anchor === undefined) return undefined;
  const target = repository.files.find((each) => each === found || each.endsWith(`/${found}`))!;
  if (!target.endsWith('.md')) return undefined;
  return anchorsOf(readFileSync(join(repository.root, target), 'utf8')).has(anchor.slice(1)) ? undefined : `no heading ${anchor} in ${target}`;
}

/** Every citation of `file` (whose text is `text`) that a reader of the repository cannot follow. */
export function uncitable(repository: Repository, file: string, text: string): Citation[] {
  const markdown = file.endsWith('.md');
  const citations = passagesOf(file, text).flatMap((passage) => {
    const at = (index: number) => passage.line + linesBefore(passage.text, index);
    const withoutUrls = passage.text.replace(url, (match) => ' '.repeat(match.length));
    const overlaps = (taken: { start: number; end: number }[], start: number, end: number) => taken.some((each) => start < each.end && each.start < end);
    const outside: { start: number; end: number; citation: string }[] = [];
    const matches = outsideDocuments
      .filter(({ markdownToo }) => markdownToo || !(markdown || /\b[\w-]+\.md\b/.test(withoutUrls)))
      .flatMap(({ pattern, inRepository }) =>
        [...withoutUrls.matchAll(pattern)].filter((match) => {
          if (!inRepository) return true;
          const folder = resolve('/', dirname(file), match[0]).slice(1);
          return !repository.files.some((each) => each.startsWith(`${folder}/`));
        }),
      )
      .sort((a, b) => a.index - b.index || b[0].length - a[0].length);
    for (const match of matches) {
      const [start, end] = [match.index, match.index + match[0].length];
      if (!overlaps(outside, start, end)) outside.push({ start, end, citation: match[0] });
    }
    const found: (Citation & { index: number })[] = outside.map(({ start, citation }) => ({ file, line: at(start), index: start, citation, reason: 'a document outside the repository' }));
    if (passage.prose) {
      for (const match of withoutUrls.matchAll(fileName)) {
        if (overlaps(outside, match.index, match.index + match[0].length)) continue;
        // A section cited by its title, as in `docs/client-api.md, "POST /auth"`, must be a heading of that page.
        const titled = match[2] === undefined && match[1]!.endsWith('.md') ? /^,?\s*"([^"\n]+)"/.exec(withoutUrls.slice(match.index + match[0].length)) : null;
        const anchor = titled ? `#${slugOf(titled[1]!)}` : match[2];
        const reason = missingReason(repository, file, match[1]!, anchor);
        if (reason) found.push({ file, line: at(match.index), index: match.index, citation: match[0] + (titled?.[0] ?? ''), reason });
      }
    }
    return found;
  });
  return citations.sort((a, b) => a.line - b.line || a.index - b.index).map(({ index: _index, ...citation }) => citation);
}

export function scanRepository(root: string): Citation[] {
  const repository = { root, files: trackedFiles(root) };
  return repository.files.filter(isScanned).flatMap((file) => uncitable(repository, file, readFileSync(join(root, file), 'utf8')));
}

export const describeCitation = (citation: Citation) => `${citation.file}:${citation.line}: ${citation.citation} (${citation.reason})`;
