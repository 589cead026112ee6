import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { newId } from '../ids';
import type { Logger } from '../logger';
import { fromHeader, type Mailer } from './mailer';

/** The address local messages claim to come from: nothing is sent, so any placeholder serves. */
export const outboxFromAddress = 'portal@localhost';

/**
 * `npm start`'s mailer: each message is a file `<time>-<id>.eml` (headers, then the text part, then
 * the HTML part) in `dir`, and one log line names the file. The line carries neither the
 * recipient nor anything of the message: codes and keys are read from the file.
 */
export function outboxMailer(dir: string, logger: Pick<Logger, 'info'>): Mailer {
  return {
    async send(message) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const file = join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${newId()}.eml`);
      const boundary = `outbox-${newId()}`;
      const body = [
        `From: ${fromHeader(outboxFromAddress, message.fromName)}`,
        `To: ${message.to}`,
        `Subject: ${message.subject}`,
        'MIME-Version: 1.0',
        `Content-Type: multipart/alternative; boundary="${boundary}"`,
        '',
        `--${boundary}`,
        'Content-Type: text/plain; charset=utf-8',
        '',
        message.text,
        `--${boundary}`,
        'Content-Type: text/html; charset=utf-8',
        '',
        message.html,
        `--${boundary}--`,
        '',
      ].join('\r\n');
      await writeFile(file, body, { mode: 0o600 });
      logger.info('email written to the outbox', { file });
    },
  };
}
