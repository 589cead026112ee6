import { readFileSync } from 'node:fs';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const withoutCode = markdown.replace(/^```[\s\S]*?^```/gm, '');
  for (const [, title] of withoutCode.matchAll(/^#{1,6}\s+(.+?)\s*$/gm)) {
    const slug = title!
      .replace(/`/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
    seen.set(slug, count + 1);
  }
  return anchors;
}

describe('README links within the page', () => {
  it('all lead to a heading', () => {
    const anchors = anchorsOf(readme);
    const links = [...readme.matchAll(/\]\(#([^)]+)\)/g)].map((match) => match[1]!);
    expect(links.length).toBeGreaterThan(0);
    expect(links.filter((link) => !anchors.has(link))).toEqual([]);
  });

  it('send the reader after CDK settings to the stack settings, not to the environment variables', () => {
    expect(readme).toMatch(/keep them in `cdk\.json`, see\s+\[[^\]]+\]\(#stack-settings-cdk-context\)/);
  });
});
