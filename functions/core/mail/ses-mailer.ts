import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { fromHeader, type Mailer } from './mailer';

/**
 * On AWS: SES v2 `SendEmail` from an address of the stack's verified identity (`SES_IDENTITY`),
 * the only identity the sending functions' roles may send from. Only the groups that send email
 * import this module, and only on their first message (`lazySesMailer`).
 */
export function sesMailer(client: SESv2Client, fromAddress: string): Mailer {
  return {
    async send(message) {
      await client.send(
        new SendEmailCommand({
          FromEmailAddress: fromHeader(fromAddress, message.fromName),
          Destination: { ToAddresses: [message.to] },
          Content: {
            Simple: {
              Subject: { Data: message.subject, Charset: 'UTF-8' },
              Body: { Text: { Data: message.text, Charset: 'UTF-8' }, Html: { Data: message.html, Charset: 'UTF-8' } },
            },
          },
        }),
      );
    },
  };
}

export function createSesClient(region: string): SESv2Client {
  return new SESv2Client({ region, maxAttempts: 3, requestHandler: { connectionTimeout: 1000, requestTimeout: 5000, throwOnRequestTimeout: true } });
}
