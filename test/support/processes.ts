import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Every process below `pid`, with its command line. */
export async function descendants(pid: number): Promise<{ pid: number; args: string }[]> {
  const { stdout } = await run('ps', ['-A', '-o', 'pid=,ppid=,args=']);
  const processes = stdout
    .split('\n')
    .map((line) => line.trim().match(/^(\d+)\s+(\d+)\s+(.*)$/))
    .filter((match) => match !== null)
    .map(([, child, parent, args]) => ({ pid: Number(child), ppid: Number(parent), args: args! }));
  const found: { pid: number; args: string }[] = [];
  const parents = [pid];
  for (let next = parents.pop(); next !== undefined; next = parents.pop()) {
    for (const below of processes.filter((candidate) => candidate.ppid === next)) {
      found.push({ pid: below.pid, args: below.args });
      parents.push(below.pid);
    }
  }
  return found;
}

/** Whether a process of this id still runs (a zombie no longer counts). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface Started {
  child: ChildProcess;
  banner: string;
  url: string;
  apiKey: string;
  teamId: string;
}

/**
 * `npm start` in a process group of its own, up to its banner. The child is added to
 * `running`, whose owner kills each group afterwards (`process.kill(-pid)`).
 */
export async function npmStart(env: NodeJS.ProcessEnv, running: ChildProcess[]): Promise<Started> {
  const child = spawn('npm', ['start'], { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(child);
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const banner = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`npm start printed no banner in 60 s:\n${stdout}\n${stderr}`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('Ctrl-C')) {
        clearTimeout(timer);
        done(stdout);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`npm start exited with ${code}:\n${stdout}\n${stderr}`));
    });
  });
  const field = (pattern: RegExp) => banner.match(pattern)?.[1] ?? '';
  return { child, banner, url: field(/Licensing service on (\S+)/), apiKey: field(/API key: +(\S+)/), teamId: field(/demo team: +(\S+)/) };
}
