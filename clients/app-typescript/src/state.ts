import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { LicenseError } from './errors.js';

/** Replaces the file whole, mode 0600 (it holds license keys): a crash or a concurrent reader sees the old content or the new, never part of one. */
export async function replaceFile(file: string, content: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temporary = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temporary, content, { mode: 0o600 });
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** The file's text; undefined when it cannot be read (a missing file is no stored state). */
async function readText(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}

async function readJson(file: string): Promise<unknown> {
  const text = await readText(file);
  try {
    return text === undefined ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

/** An activation request this program made, kept until the license file made from it is loaded. */
export interface PendingRequest {
  license: string;
  hwid: string;
  nonce: string;
}

/** How far the clock may be behind the latest time seen before a stored token or file is refused: time zones, a dead clock battery put right by hand. */
const clockSlackSeconds = 86_400;
/** Requests made again and again without their file arriving (a lost QR code, a second try) are kept, the oldest dropped past this many. */
const keptRequests = 10;

const isPending = (value: unknown): value is PendingRequest =>
  typeof value === 'object' && value !== null && ['license', 'hwid', 'nonce'].every((field) => typeof (value as Record<string, unknown>)[field] === 'string');

/**
 * What the client keeps between runs (README, "State"): in `stateDir` the
 * offline token (unless `tokenFile` names another place), the license file,
 * the activation requests waiting for their file, and the latest time seen;
 * with only `tokenFile`, the token and the latest time seen beside it.
 */
export class ClientState {
  readonly tokenFile: string | undefined;
  private readonly dir: string | undefined;
  private readonly clockFile: string | undefined;
  /** The requests file is read, changed and written again: one client's calls take turns. */
  private requestsTurn: Promise<unknown> = Promise.resolve();

  constructor(options: { stateDir?: string | undefined; tokenFile?: string | undefined }) {
    this.dir = options.stateDir;
    this.tokenFile = options.tokenFile ?? (options.stateDir === undefined ? undefined : join(options.stateDir, 'offline-token.json'));
    this.clockFile = options.stateDir !== undefined ? join(options.stateDir, 'clock.json') : options.tokenFile !== undefined ? `${options.tokenFile}.clock` : undefined;
  }

  private file(name: string, use: string): string {
    if (this.dir === undefined) throw new TypeError(`${use} needs the stateDir option: that is where the license file and activation requests are kept`);
    return join(this.dir, name);
  }

  get keepsFiles(): boolean {
    return this.dir !== undefined;
  }

  /** The stored license file (the compact string); undefined when none is, or when there is no state directory. */
  async licenseFile(): Promise<string | undefined> {
    if (this.dir === undefined) return undefined;
    const text = (await readText(join(this.dir, 'license.lic')))?.trim();
    return text ? text : undefined;
  }

  /** On disk as the compact string and one newline, so the file can be copied and read by any JOSE library. */
  storeLicenseFile(text: string): Promise<void> {
    return replaceFile(this.file('license.lic', 'Storing a license file'), `${text.trim()}\n`);
  }

  /** Deletes the stored license file, only if it is still `text` (a newer one loaded meanwhile stays). */
  async dropLicenseFile(text: string): Promise<void> {
    if ((await this.licenseFile()) === text.trim()) await rm(this.file('license.lic', 'Deleting the license file'), { force: true });
  }

  async pendingRequests(): Promise<PendingRequest[]> {
    const kept = await readJson(this.file('activation-requests.json', 'An activation request'));
    return Array.isArray(kept) ? kept.filter(isPending) : [];
  }

  keepRequest(request: PendingRequest): Promise<void> {
    return this.changeRequests((kept) => [...kept, request].slice(-keptRequests));
  }

  /** A file arrived for this license and device: every request waiting for one is answered. */
  forgetRequests(answered: { license: string; hwid: string }): Promise<void> {
    return this.changeRequests((kept) => kept.filter((request) => request.license !== answered.license || request.hwid !== answered.hwid));
  }

  private changeRequests(change: (kept: PendingRequest[]) => PendingRequest[]): Promise<void> {
    const file = this.file('activation-requests.json', 'An activation request');
    const turn = this.requestsTurn.catch(() => undefined).then(async () => replaceFile(file, JSON.stringify(change(await this.pendingRequests()))));
    this.requestsTurn = turn;
    return turn;
  }

  /**
   * Before a stored token or file is trusted by the computer's clock: throws
   * `CLOCK_MOVED_BACK` when `nowSeconds` is more than a day behind the latest
   * time seen, else records it when it is later. Without a place to keep the
   * time nothing is stored to trust, and nothing is judged.
   */
  async judgeClock(nowSeconds: number): Promise<void> {
    if (this.clockFile === undefined) return;
    const latest = await this.latestSeen();
    if (latest !== undefined && nowSeconds < latest - clockSlackSeconds) {
      throw new LicenseError('CLOCK_MOVED_BACK', 'the computer clock is more than a day behind a time this program has already seen', {
        data: { latest_seen_at: new Date(latest * 1000).toISOString() },
      });
    }
    if (latest === undefined || nowSeconds > latest) await replaceFile(this.clockFile, JSON.stringify({ seen: nowSeconds }));
  }

  /**
   * The service's time (`iat`) of a token or file that came with this
   * request's nonce: the latest time seen from now on, even when earlier than
   * the one kept, so a clock once set ahead and then put right is forgiven at
   * the next answer instead of refusing offline use until that date.
   */
  async sawServiceTime(seconds: number): Promise<void> {
    if (this.clockFile !== undefined && Number.isFinite(seconds)) await replaceFile(this.clockFile, JSON.stringify({ seen: seconds }));
  }

  private async latestSeen(): Promise<number | undefined> {
    const kept = this.clockFile === undefined ? undefined : await readJson(this.clockFile);
    const seen = typeof kept === 'object' && kept !== null ? (kept as { seen?: unknown }).seen : undefined;
    return typeof seen === 'number' && Number.isFinite(seen) ? seen : undefined;
  }
}
