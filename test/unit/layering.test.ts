import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The layers of functions/ point one way: shared <- data <- core <- the route
 * groups. A module of a lower layer that imported a higher one would make the
 * layers one tangle again (data needing core's settings while core builds data's
 * repositories).
 */
const root = path.resolve(import.meta.dirname, '../..');
const aliases: Record<string, string> = { '#core/': 'functions/core/', '#data/': 'functions/data/', '#shared/': 'functions/shared/' };

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));
}

/** Every module a file imports, as a path from the repository's root (packages stay as named). */
function importsOf(file: string, source = readFileSync(path.join(root, file), 'utf8')): string[] {
  return ts.preProcessFile(source, true, true).importedFiles.map(({ fileName }) => {
    const alias = Object.keys(aliases).find((prefix) => fileName.startsWith(prefix));
    if (alias) return aliases[alias] + fileName.slice(alias.length);
    if (fileName.startsWith('.')) return path.relative(root, path.resolve(root, path.dirname(file), fileName));
    return fileName;
  });
}

function crossings(dir: string, forbidden: string[]): string[] {
  return sourceFiles(dir).flatMap((file) =>
    importsOf(file)
      .filter((target) => forbidden.some((layer) => target === layer || target.startsWith(`${layer}/`)))
      .map((target) => `${file} imports ${target}`),
  );
}

describe('layering of functions/', () => {
  it('data imports nothing of core', () => {
    expect(crossings('functions/data', ['functions/core'])).toEqual([]);
  });

  it('shared imports nothing of data or core', () => {
    expect(crossings('functions/shared', ['functions/core', 'functions/data'])).toEqual([]);
  });

  it('sees an import of core, by alias or relative path, as a crossing', () => {
    const file = 'functions/data/example.ts';
    expect(importsOf(file, "import { x } from '#core/config';\nimport type { y } from '../core/http/errors';")).toEqual([
      'functions/core/config',
      'functions/core/http/errors',
    ]);
  });
});
