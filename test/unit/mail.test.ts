import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { mockClient } from 'aws-sdk-client-mock';
import { ConfigError, readConfig } from '#core/config';
import { escapeHtml, fromHeader } from '#core/mail/mailer';
import { outboxMailer } from '#core/mail/outbox';
import { sesMailer } from '#core/mail/ses-mailer';

const ses = mockClient(SESv2Client);
beforeEach(() => ses.reset());

const message = { to: 'buyer@example.com', subject: 'Your sign-in code', text: 'Code: 123456', html: '<p>Code: <b>123456</b></p>', fromName: 'Acme "Tools"' };

describe('the SES mailer', () => {
  it('sends one SendEmail from the deployment address under the owner\'s name, with the text and HTML parts', async () => {
    ses.on(SendEmailCommand).resolves({ MessageId: 'm-1' });
    await sesMailer(new SESv2Client({ region: 'eu-west-1' }), 'no-reply@example.com').send(message);
    const calls = ses.commandCalls(SendEmailCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args[0].input).toEqual({
      FromEmailAddress: '"Acme \\"Tools\\"" <no-reply@example.com>',
      Destination: { ToAddresses: ['buyer@example.com'] },
      Content: {
        Simple: {
          Subject: { Data: 'Your sign-in code', Charset: 'UTF-8' },
          Body: { Text: { Data: 'Code: 123456', Charset: 'UTF-8' }, Html: { Data: '<p>Code: <b>123456</b></p>', Charset: 'UTF-8' } },
        },
      },
    });
  });

  it('passes a refusal of SES on to the caller', async () => {
    ses.on(SendEmailCommand).rejects(new Error('MessageRejected'));
    await expect(sesMailer(new SESv2Client({ region: 'eu-west-1' }), 'no-reply@example.com').send(message)).rejects.toThrow('MessageRejected');
  });
});

describe('the local outbox', () => {
  let dir: string;
  beforeEach(() => {
    dir = join(mkdtempSync(join(tmpdir(), 'outbox-')), 'outbox');
  });
  afterEach(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

  it('writes each message to a file of its own and logs one line naming the file, never the address or the message', async () => {
    const lines: { message: string; fields?: Record<string, unknown> }[] = [];
    const mailer = outboxMailer(dir, { info: (line, fields) => lines.push({ message: line, fields }) });
    await mailer.send(message);
    await mailer.send({ ...message, to: 'other@example.com' });
    const files = readdirSync(dir).sort();
    expect(files).toHaveLength(2);
    const first = readFileSync(join(dir, files[0]!), 'utf8');
    expect(first).toContain('To: buyer@example.com');
    expect(first).toContain('From: "Acme \\"Tools\\"" <portal@localhost>');
    expect(first).toContain('Code: 123456');
    expect(first).toContain('<p>Code: <b>123456</b></p>');
    expect(lines.map((line) => line.fields?.file).sort()).toEqual(files.map((file) => join(dir, file)));
    expect(JSON.stringify(lines)).not.toMatch(/example\.com|123456/);
  });
});

describe('mail headers and HTML', () => {
  it('keeps an owner\'s sender name to one quoted display name: no line breaks, quotes escaped', () => {
    expect(fromHeader('no-reply@example.com', 'Acme\r\nBcc: victim@example.org')).toBe('"Acme Bcc: victim@example.org" <no-reply@example.com>');
    expect(fromHeader('no-reply@example.com', undefined)).toBe('no-reply@example.com');
    expect(fromHeader('no-reply@example.com', '  ')).toBe('no-reply@example.com');
  });

  it('escapes what HTML would read as markup', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;');
  });
});

describe('the sender identity setting', () => {
  it('sends from the identity when it is an address and from no-reply@ when it is a domain', () => {
    expect(readConfig({ SES_IDENTITY: 'licenses@example.com' })).toMatchObject({ sesIdentity: 'licenses@example.com', mailFromAddress: 'licenses@example.com' });
    expect(readConfig({ SES_IDENTITY: 'mail.example.com' })).toMatchObject({ sesIdentity: 'mail.example.com', mailFromAddress: 'no-reply@mail.example.com' });
    expect(readConfig({})).toMatchObject({ sesIdentity: undefined, mailFromAddress: undefined });
  });

  it('refuses what SES could not verify as an identity', () => {
    for (const identity of ['localhost', 'a@b@example.com', 'Acme <a@example.com>', 'example.com/path']) {
      expect(() => readConfig({ SES_IDENTITY: identity })).toThrow(ConfigError);
    }
  });
});
