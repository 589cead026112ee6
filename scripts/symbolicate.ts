import { existsSync, readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * `npm run -s symbolicate -- <code folder> < trace.txt`: turns the positions in
 * a deployed function's stack trace (`/var/task/index.mjs:1:52311`,
 * `/var/task/chunks/…mjs:1:880`) into the source's (`functions/client/auth.ts:88:11`),
 * with the source maps that ship beside the function's code. The functions run
 * without Node's own source-map support, which slowed every cold start
 * (docs/operations.md#reading-a-stack-trace).
 */
const frame = /(?:file:\/\/)?\/[^\s()]*?((?:chunks\/)?[^\s()/]+\.mjs):(\d+):(\d+)/g;

export function symbolicate(trace: string, codeDir: string): string {
  const maps = new Map<string, SourceMap | undefined>();
  const mapOf = (file: string) => {
    if (!maps.has(file)) {
      const mapFile = join(codeDir, `${file}.map`);
      maps.set(file, existsSync(mapFile) ? new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8')) as SourceMapPayload) : undefined);
    }
    return maps.get(file);
  };
  return trace.replace(frame, (whole, file: string, line: string, column: string) => {
    const entry = mapOf(file)?.findEntry(Number(line) - 1, Number(column) - 1);
    if (!entry || !('originalSource' in entry)) return whole;
    // Sources are relative to the map (../../functions/…): the project's own path is what a reader looks up.
    const source = entry.originalSource.replace(/^(?:file:\/\/)?(?:\.\.\/)+/, '');
    return `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [codeDir] = process.argv.slice(2);
  if (!codeDir || !existsSync(join(codeDir, 'index.mjs.map'))) {
    process.stderr.write('usage: npm run -s symbolicate -- <folder with the function\'s index.mjs and index.mjs.map> < trace.txt\n');
    process.exit(2);
  }
  process.stdout.write(symbolicate(readFileSync(0, 'utf8'), codeDir));
}
