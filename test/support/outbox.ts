import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One message of an outbox (functions/core/mail/outbox.ts), its parts read back. */
export interface OutboxMessage {
  file: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** Every message in `dir`, oldest first (file names begin with the time they were written). */
export function outboxMessages(dir: string): OutboxMessage[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => file.endsWith('.eml'))
    .sort()
    .map((file) => {
      const raw = readFileSync(join(dir, file), 'utf8');
      const header = (name: string) => new RegExp(`^${name}: (.*)$`, 'm').exec(raw)?.[1] ?? '';
      const boundary = /boundary="([^"]+)"/.exec(raw)![1]!;
      const [, textPart, htmlPart] = raw.split(`--${boundary}`);
      const body = (part: string) => part.split('\r\n\r\n').slice(1).join('\r\n\r\n').replace(/\r\n$/, '');
      return { file, from: header('From'), to: header('To'), subject: header('Subject'), text: body(textPart!), html: body(htmlPart!) };
    });
}

/** The messages sent to `to`, oldest first. */
export function messagesTo(dir: string, to: string): OutboxMessage[] {
  return outboxMessages(dir).filter((message) => message.to === to);
}
