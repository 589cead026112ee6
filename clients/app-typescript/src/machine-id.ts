import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { hostname, userInfo } from 'node:os';
import { promisify } from 'node:util';

const run = promisify(execFile);

async function firstLine(file: string): Promise<string | undefined> {
  try {
    return (await readFile(file, 'utf8')).trim().split('\n')[0]?.trim() || undefined;
  } catch {
    return undefined;
  }
}

async function output(command: string, args: string[], pattern: RegExp): Promise<string | undefined> {
  try {
    const { stdout } = await run(command, args, { timeout: 5000, windowsHide: true });
    return pattern.exec(stdout)?.[1]?.trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The operating system's own id of this installation, where it keeps one; the README lists the sources. */
async function machineSource(platform: NodeJS.Platform): Promise<string | undefined> {
  switch (platform) {
    case 'linux':
      return (await firstLine('/etc/machine-id')) ?? (await firstLine('/var/lib/dbus/machine-id'));
    case 'darwin':
      return output('ioreg', ['-rd1', '-c', 'IOPlatformExpertDevice'], /"IOPlatformUUID"\s*=\s*"([^"]+)"/);
    case 'win32':
      return output('reg', ['query', 'HKLM\\SOFTWARE\\Microsoft\\Cryptography', '/v', 'MachineGuid', '/reg:64'], /MachineGuid\s+REG_SZ\s+(\S+)/);
    case 'freebsd':
    case 'openbsd':
    case 'netbsd':
      return (await firstLine('/etc/hostid')) ?? (await output('kenv', ['-q', 'smbios.system.uuid'], /^(\S+)/));
    default:
      return undefined;
  }
}

/**
 * A fingerprint of this machine and user for this application: SHA-256 of the
 * system's machine id (the host name where the system keeps none), the user's
 * name and the app id, in hex. Hashing with the app id means the value reveals
 * neither id, and two applications see different values for one machine.
 */
export async function machineFingerprint(appId: string, platform: NodeJS.Platform = process.platform): Promise<string> {
  const machine = (await machineSource(platform)) ?? `host:${hostname()}`;
  return createHash('sha256').update(['licensing-machine-id-v1', appId, machine, userInfo().username].join('\0')).digest('hex');
}
