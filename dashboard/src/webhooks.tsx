import { Can, useCan } from './access';
import { useEffect, useState } from 'preact/hooks';
import { call, type App, type Body, type Webhook, type WebhookDelivery } from './api';
import { ConfirmDialog, copyText, Field, Pager, shortTime, TableWrap, usePlacedNotice, type ConfirmRequest } from './ui';

const states = ['pending', 'delivered', 'failed'] as const;

/** `*`, or event types separated by commas or spaces. */
type Events = Body<'/webhook/create'>['events'];

/** The server checks each type (400 naming `events`): the text is sent as typed. */
const parseEvents = (text: string): Events => {
  const events = text.split(/[\s,]+/).filter((entry) => entry !== '');
  return (events.length === 0 ? ['*'] : events) as Events;
};

/** An endpoint's delivery log: state filter, paging, redelivery. */
function Deliveries({ webhook }: { webhook: Webhook }) {
  const [state, setState] = useState<'' | (typeof states)[number]>('');
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState<{ deliveries: WebhookDelivery[]; next: string | null } | null>(null);
  const { busy, run, act, note } = usePlacedNotice();
  const cursor = cursors[cursors.length - 1];
  const refresh = async () => {
    const listed = await call('/webhook/deliveries', { webhook_id: webhook.webhook_id, per_page: 10, ...(state ? { state } : {}), ...(cursor ? { cursor } : {}) });
    setPage({ deliveries: listed.data, next: listed.next_cursor ?? null });
  };
  const load = () => run(refresh);
  useEffect(() => {
    void load();
  }, [webhook.webhook_id, state, cursors]);

  const redeliver = (delivery: WebhookDelivery) =>
    act(
      delivery.delivery_id,
      async () => {
        await call('/webhook/redeliver', { delivery_id: delivery.delivery_id });
        await refresh();
        return true;
      },
      `Redelivery of ${delivery.type} queued.`,
    );

  return (
    <section class="card" aria-label={`Deliveries to ${webhook.url}`}>
      <div class="row">
        <h2>Deliveries</h2>
        <Field label="State">
          <select
            value={state}
            onChange={(event) => {
              setState(event.currentTarget.value as typeof state);
              setCursors([undefined]);
            }}
          >
            <option value="">All states</option>
            {states.map((name) => (
              <option key={name}>{name}</option>
            ))}
          </select>
        </Field>
        <button type="button" disabled={busy} onClick={() => void load()}>
          Refresh
        </button>
      </div>
      {note(null)}
      <TableWrap>
        <table>
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">State</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last status</th>
              <th scope="col">Last error</th>
              <th scope="col">Next attempt</th>
              <th scope="col">Created</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {(page?.deliveries ?? []).map((delivery) => (
              <tr key={delivery.delivery_id}>
                <td>
                  <code>{delivery.type}</code>
                </td>
                <td>{delivery.state}</td>
                <td>{delivery.attempts}</td>
                <td>{delivery.last_status ?? '—'}</td>
                <td>{delivery.last_error ?? ''}</td>
                <td>{shortTime(delivery.next_attempt_at)}</td>
                <td>{shortTime(delivery.created_at)}</td>
                <td>
                  <Can path="/webhook/redeliver">
                    <button type="button" disabled={busy || !webhook.enabled} onClick={() => void redeliver(delivery)}>
                      Redeliver
                    </button>
                  </Can>
                  {note(delivery.delivery_id)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      {page && page.deliveries.length === 0 && <p class="hint">No deliveries yet.</p>}
      <Pager cursors={cursors} next={page?.next} busy={busy} onChange={setCursors} />
    </section>
  );
}

export function Webhooks({ app }: { app: App }) {
  const [webhooks, setWebhooks] = useState<Webhook[] | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const [confirm, setConfirm] = useState<ConfirmRequest | null>(null);
  const { busy, run, act, say, tell, note } = usePlacedNotice();
  const can = useCan();

  const refresh = async () => setWebhooks((await call('/webhook/list', { app_id: app.app_id })).data);
  const load = () => run(refresh);
  useEffect(() => {
    setSelected(null);
    setSecret(null);
    void load();
  }, [app.app_id]);

  const copySecret = (text: string) => copyText(text, 'Secret', 'secret', { notice: (done) => tell('Secret', done), error: (problem) => say('Secret', problem) });

  const update = (webhook: Webhook, body: Omit<Body<'/webhook/update'>, 'webhook_id'>, done: string) =>
    // Said once the list shows it, so the notice never stands beside a row that still shows the old state.
    act(
      webhook.webhook_id,
      async () => {
        await call('/webhook/update', { webhook_id: webhook.webhook_id, ...body });
        await refresh();
        return true;
      },
      done,
    );

  const shown = webhooks?.find((webhook) => webhook.webhook_id === selected);
  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhooks</h1>
      <p class="hint">
        Signed POSTs of this application's events to your endpoints (Standard Webhooks), retried for about 38 hours. At most 10 endpoints.
      </p>
      <Can path="/webhook/create"><form
        class="row card"
        aria-label="Add endpoint"
        onSubmit={(event) => {
          event.preventDefault();
          const form = event.currentTarget;
          const data = new FormData(form);
          const description = String(data.get('description') ?? '').trim();
          void act('Add endpoint', async () => {
            const created = await call('/webhook/create', {
              app_id: app.app_id,
              url: String(data.get('url')).trim(),
              events: parseEvents(String(data.get('events') ?? '')),
              ...(description ? { description } : {}),
            });
            setSecret({ url: created.data.url, secret: created.data.secret });
            form.reset();
            await refresh();
            return true;
          }, 'Endpoint added.');
        }}
      >
        <Field label="URL">
          <input name="url" type="url" required placeholder="https://example.com/hooks/licensing" />
        </Field>
        <Field label="Events">
          <input name="events" placeholder="* or license.created, license.deleted" />
        </Field>
        <Field label="Description">
          <input name="description" />
        </Field>
        <button type="submit" disabled={busy}>
          Add endpoint
        </button>
        {note('Add endpoint')}
      </form></Can>
      {secret && (
        <div class="card" role="status" aria-label="New secret">
          <p>
            Signing secret of <code>{secret.url}</code>. It is shown only now: store it where your receiver reads it.
          </p>
          <pre>
            <code>{secret.secret}</code>
          </pre>
          <div class="row">
            <button type="button" onClick={() => void copySecret(secret.secret)}>
              Copy secret
            </button>
            <button type="button" onClick={() => setSecret(null)}>
              Done
            </button>
          </div>
          {note('Secret')}
        </div>
      )}
      {note(null)}
      {note('Endpoints')}
      <TableWrap>
        <table>
          <thead>
            <tr>
              <th scope="col">URL</th>
              <th scope="col">Events</th>
              <th scope="col">Description</th>
              <th scope="col">Enabled</th>
              <th scope="col">Created</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {(webhooks ?? []).map((webhook) => (
              <tr key={webhook.webhook_id} aria-selected={webhook.webhook_id === selected}>
                <td>
                  <code>{webhook.url}</code>
                </td>
                <td>
                  <input
                    aria-label={`Events of ${webhook.url}`}
                    value={webhook.events.join(', ')}
                    disabled={busy || !can('/webhook/update')}
                    onChange={(event) => void update(webhook, { events: parseEvents(event.currentTarget.value) }, 'Event filter saved.')}
                  />
                </td>
                <td>{webhook.description}</td>
                <td>{webhook.enabled ? 'yes' : 'no'}</td>
                <td>{shortTime(webhook.created_at)}</td>
                <td class="row">
                  <button type="button" disabled={busy} onClick={() => setSelected(webhook.webhook_id)}>
                    Deliveries
                  </button>
                  <Can path="/webhook/update">
                    <button type="button" disabled={busy} onClick={() => void update(webhook, { enabled: !webhook.enabled }, webhook.enabled ? 'Disabled.' : 'Enabled.')}>
                      {webhook.enabled ? 'Disable' : 'Enable'}
                    </button>
                  </Can>
                  <Can path="/webhook/rotate-secret"><button
                    type="button"
                    disabled={busy}
                    onClick={() =>
                      setConfirm({
                        title: `Rotate the secret of ${webhook.url}?`,
                        text: 'Deliveries from now on are signed with the new secret; the old one stops verifying.',
                        action: 'Rotate secret',
                        onConfirm: () =>
                          void act(webhook.webhook_id, async () => {
                            const rotated = await call('/webhook/rotate-secret', { webhook_id: webhook.webhook_id });
                            setSecret({ url: rotated.data.url, secret: rotated.data.secret });
                          }),
                      })
                    }
                  >
                    Rotate secret…
                  </button></Can>
                  <Can path="/webhook/delete"><button
                    type="button"
                    class="danger"
                    disabled={busy}
                    onClick={() =>
                      setConfirm({
                        title: `Delete the endpoint ${webhook.url}?`,
                        text: 'Nothing more is sent to it, retries included.',
                        action: 'Delete endpoint',
                        onConfirm: () =>
                          // Said above the list: the endpoint's row is gone once it is deleted.
                          void act(
                            'Endpoints',
                            async () => {
                              await call('/webhook/delete', { webhook_id: webhook.webhook_id });
                              if (selected === webhook.webhook_id) setSelected(null);
                              await refresh();
                              return true;
                            },
                            'Deleted.',
                          ),
                      })
                    }
                  >
                    Delete…
                  </button></Can>
                  {note(webhook.webhook_id)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      {webhooks && webhooks.length === 0 && <p class="hint">No endpoints yet.</p>}
      {shown && <Deliveries webhook={shown} />}
      <ConfirmDialog request={confirm} onClose={() => setConfirm(null)} />
    </section>
  );
}
