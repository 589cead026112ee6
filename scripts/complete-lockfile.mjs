// The registry this project is built against serves only the Linux builds of
// platform-specific optional packages (@swc/core-*, @unrs/resolver-binding-*, ...),
// so `npm install` leaves the others out of package-lock.json and `npm ci` then
// refuses the lock. This adds the missing entries with their platform, which npm
// skips on Linux and fetches by version elsewhere. Run after `npm install`.
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;

const osNames = ['darwin', 'win32', 'linux', 'android', 'freebsd', 'openbsd', 'netbsd', 'sunos', 'aix', 'openharmony', 'wasm32'];
const cpuNames = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'riscv64', 'loong64', 'mips64el', 'wasm32'];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((part) => osNames.includes(part));
  const cpu = parts.find((part) => cpuNames.includes(part));
  const libc = parts.find((part) => part === 'gnu' || part === 'musl' || part.startsWith('gnueabi') || part.startsWith('musleabi'));
  return { os, cpu, libc };
}

let added = 0;
for (const [path, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = `${path ? `${path}/` : ''}node_modules/${name}`;
    if (packages[nested] || packages[`node_modules/${name}`]) continue;
    const { os, cpu, libc } = platformOf(name);
    if (!os) continue;
    packages[`node_modules/${name}`] = {
      version,
      optional: true,
      os: [os === 'wasm32' ? '!linux' : os],
      ...(cpu ? { cpu: [cpu] } : {}),
      ...(libc ? { libc: [libc.startsWith('musl') ? 'musl' : 'glibc'] } : {}),
    };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} platform entries`);
