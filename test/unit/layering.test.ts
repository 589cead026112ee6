import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The layers of functions/ point one way: shared <- data <- core <- the route
 * groups. A module of a lower layer that imported a higher one would make the
 * layers one tangle again (data needing core's settings while core builds data's
 * repositories). Inside them the same holds at a finer grain: an entity's model
 * (data/model) is pure, a repository reaches no other repository, and core's
 * folders import in one direction only.
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

const within = (target: string, layer: string) => target === layer || target.startsWith(`${layer}/`);

function crossings(files: string[], forbidden: (target: string) => boolean): string[] {
  return files.flatMap((file) => importsOf(file).filter(forbidden).map((target) => `${file} imports ${target}`));
}

const inFolder = (dir: string) => sourceFiles(dir);
const isRepository = (target: string) => /^functions\/data\/[^/]+\.repo$/.test(target.replace(/\.ts$/, ''));

/** The route groups and the other functions of functions/: every folder but the three layers below them. */
const routeGroups = readdirSync(path.join(root, 'functions'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !['core', 'data', 'shared'].includes(entry.name))
  .map((entry) => `functions/${entry.name}`);

describe('layering of functions/', () => {
  it('data imports nothing of core', () => {
    expect(crossings(inFolder('functions/data'), (target) => within(target, 'functions/core'))).toEqual([]);
  });

  it('shared imports nothing of data or core', () => {
    expect(crossings(inFolder('functions/shared'), (target) => within(target, 'functions/core') || within(target, 'functions/data'))).toEqual([]);
  });

  it('an entity model imports nothing but zod, functions/shared and other models', () => {
    const allowed = (target: string) => target === 'zod/mini' || within(target, 'functions/shared') || within(target, 'functions/data/model');
    expect(crossings(inFolder('functions/data/model'), (target) => !allowed(target))).toEqual([]);
  });

  it('no repository imports another', () => {
    const repositories = inFolder('functions/data').filter((file) => isRepository(file));
    expect(repositories.length).toBeGreaterThan(10);
    expect(crossings(repositories, isRepository)).toEqual([]);
  });

  it('core imports no route group', () => {
    expect(routeGroups).toEqual(expect.arrayContaining(['functions/client', 'functions/delivery', 'functions/license']));
    expect(crossings(inFolder('functions/core'), (target) => routeGroups.some((group) => within(target, group)))).toEqual([]);
  });

  it("core's folders import one way: http none of the others, domain and signing only http, core's own files none of them", () => {
    const folder = (name: string) => (target: string) => within(target, `functions/core/${name}`);
    const ownFiles = readdirSync(path.join(root, 'functions/core'), { withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
      .map((entry) => `functions/core/${entry.name}`);
    expect([
      ...crossings(inFolder('functions/core/http'), (target) => folder('domain')(target) || folder('signing')(target)),
      ...crossings(inFolder('functions/core/domain'), folder('signing')),
      ...crossings(inFolder('functions/core/signing'), folder('domain')),
      ...crossings(ownFiles, (target) => ['http', 'domain', 'signing'].some((name) => folder(name)(target))),
    ]).toEqual([]);
  });

  it('sees an import of core, by alias or relative path, as a crossing', () => {
    const file = 'functions/data/example.ts';
    expect(importsOf(file, "import { x } from '#core/config';\nimport type { y } from '../core/http/errors';")).toEqual([
      'functions/core/config',
      'functions/core/http/errors',
    ]);
  });

  it('sees a repository imported by another, with or without its extension', () => {
    const file = 'functions/data/example.repo.ts';
    const imported = importsOf(file, "import * as licenses from './license.repo';\nimport { x } from '#data/app.repo.ts';\nimport { y } from './db';");
    expect(imported.filter(isRepository)).toEqual(['functions/data/license.repo', 'functions/data/app.repo.ts']);
  });
});
