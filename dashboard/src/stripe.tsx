import { useEffect, useState } from 'preact/hooks';
import { ApiError, apiUrl, call, type Answer, type App, type Subscription } from './api';
import { Can, CardForm, useCan } from './access';
import { ConfirmDialog, copyText, Field, shortTime, TableWrap, units, usePlacedNotice, type ConfirmRequest } from './ui';

type Connection = Answer<'/integration/stripe/get'>['data'];
type Mapping = Connection['prices'][string];

/** One row of the price map as edited: a price id and what one unit of it makes. */
interface Row {
  price: string;
  subscription_id: string;
  duration_value: number;
  duration_unit: Mapping['duration_unit'];
  max_devices: number;
}

const rowsOf = (prices: Connection['prices']): Row[] =>
  Object.entries(prices).map(([price, mapping]) => ({
    price,
    subscription_id: mapping.subscription_id,
    duration_value: mapping.duration_value,
    duration_unit: mapping.duration_unit,
    max_devices: mapping.max_devices ?? 1,
  }));

/** The events the Stripe endpoint must send (docs/stripe.md). */
const stripeEvents = ['checkout.session.completed', 'invoice.paid', 'customer.subscription.deleted', 'charge.refunded'];

/**
 * Selling through Stripe: the URL to give Stripe's webhook endpoint, the two
 * secrets (entered, sent once, never shown back) and the price map to the
 * application's subscription tiers.
 */
export function StripeScreen({ app }: { app: App }) {
  const [connection, setConnection] = useState<Connection | null | undefined>(undefined);
  const [tiers, setTiers] = useState<Subscription[]>([]);
  const [rows, setRows] = useState<Row[]>([]);
  const [confirm, setConfirm] = useState<ConfirmRequest | null>(null);
  const { busy, run, act, say, tell, note } = usePlacedNotice();
  const mayEdit = useCan()('/integration/stripe/set');
  const endpoint = `${apiUrl().replace(/\/$/, '')}/stripe/webhook/${app.app_id}`;

  useEffect(() => {
    void run(async () => {
      const listed = (await call('/subscription/get-bulk', { app_id: app.app_id })).data;
      setTiers(listed);
      try {
        const current = (await call('/integration/stripe/get', { app_id: app.app_id })).data;
        setConnection(current);
        setRows(rowsOf(current.prices));
      } catch (caught) {
        if (!(caught instanceof ApiError && caught.code === 'NOT_FOUND')) throw caught;
        setConnection(null);
        setRows([]);
      }
    });
  }, [app.app_id]);

  const copyEndpoint = () => copyText(endpoint, 'Endpoint URL', 'URL', { notice: (done) => tell('Endpoint', done), error: (problem) => say('Endpoint', problem) });

  const save = (form: HTMLFormElement) => {
    const data = new FormData(form);
    const secret = String(data.get('webhook_secret') ?? '').trim();
    const key = String(data.get('api_key') ?? '').trim();
    const prices = Object.fromEntries(
      rows.map((row) => [row.price.trim(), { subscription_id: row.subscription_id, duration_unit: row.duration_unit, duration_value: row.duration_value, max_devices: row.max_devices }]),
    );
    const wasConnected = connection !== null;
    void act('Connection', async () => {
      const saved = (
        await call('/integration/stripe/set', {
          app_id: app.app_id,
          prices,
          ...(secret ? { webhook_secret: secret } : {}),
          ...(key ? { api_key: key } : {}),
        })
      ).data;
      // The secrets are in the service now; nothing of them stays in the page.
      form.reset();
      setConnection(saved);
      setRows(rowsOf(saved.prices));
      return true;
    }, wasConnected ? 'Stripe connection saved.' : 'Connected to Stripe.');
  };

  const disconnect = () =>
    void act('Connection', async () => {
      await call('/integration/stripe/delete', { app_id: app.app_id });
      setConnection(null);
      setRows([]);
      return true;
    }, 'Disconnected from Stripe. Licenses made through Stripe stay.');

  const change = (index: number, fields: Partial<Row>) => setRows(rows.map((row, at) => (at === index ? { ...row, ...fields } : row)));

  return (
    <section aria-labelledby="stripe-title">
      <h1 id="stripe-title">Stripe</h1>
      <p class="hint">Stripe Checkout makes, renews and pauses this application's licenses by itself. See docs/stripe.md in the repository for each step.</p>
      {note(null)}

      <div class="card wide" role="region" aria-label="Webhook endpoint">
        <h2>1. Webhook endpoint</h2>
        <p>In Stripe: Developers → Webhooks → Add endpoint, with this URL and these events:</p>
        <ul class="names">
          {stripeEvents.map((name) => (
            <li key={name}>
              <code>{name}</code>
            </li>
          ))}
        </ul>
        <div class="row">
          <code data-field="endpoint_url">{endpoint}</code>
          <button type="button" onClick={() => void copyEndpoint()}>
            Copy URL
          </button>
        </div>
        {note('Endpoint')}
      </div>

      {connection !== undefined && (
        <CardForm
          path="/integration/stripe/set"
          class="card wide"
          aria-label="Stripe connection"
          onSubmit={(event) => {
            event.preventDefault();
            save(event.currentTarget);
          }}
        >
          <h2>2. Secrets</h2>
          <p data-field="status">
            {connection
              ? `Connected since ${shortTime(connection.created_at)}, signing secret ${connection.webhook_secret}. Leave both fields empty to keep the stored secrets.`
              : 'Not connected. Both secrets are needed to connect.'}
          </p>
          <Can path="/integration/stripe/set">
            <p class="hint">Stored encrypted and never shown again, not even here.</p>
            <div class="row">
              <Field label="Signing secret of the endpoint (whsec_…)">
                <input name="webhook_secret" type="password" autocomplete="off" required={!connection} />
              </Field>
              <Field label="Restricted key, Checkout Sessions: Read (rk_…)">
                <input name="api_key" type="password" autocomplete="off" required={!connection} />
              </Field>
            </div>
          </Can>

          <h2>3. Price map</h2>
          <p>Each Stripe price makes one license per unit bought, of a subscription tier, for a duration counted from first use. Prices not listed make nothing.</p>
          {tiers.length === 0 && <p class="hint">This application has no subscription tier yet: create one under Subscriptions first.</p>}
          <TableWrap>
            <table>
              <thead>
                <tr>
                  <th scope="col">Stripe price id</th>
                  <th scope="col">Subscription tier</th>
                  <th scope="col">Duration</th>
                  <th scope="col">Unit</th>
                  <th scope="col">Devices</th>
                  {mayEdit && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {rows.map((row, index) => (
                  <tr key={index}>
                    <td>
                      <input aria-label="Stripe price id" disabled={!mayEdit} name={`price_${index}`} size={28} required pattern="price_[A-Za-z0-9]{1,250}" value={row.price} onInput={(event) => change(index, { price: event.currentTarget.value })} />
                    </td>
                    <td>
                      <select aria-label="Subscription tier" disabled={!mayEdit} required value={row.subscription_id} onChange={(event) => change(index, { subscription_id: event.currentTarget.value })}>
                        <option value="">Choose…</option>
                        {tiers.map((tier) => (
                          <option key={tier.subscription_id} value={tier.subscription_id}>
                            {tier.name} (level {tier.level})
                          </option>
                        ))}
                      </select>
                    </td>
                    <td>
                      <input aria-label="Duration" disabled={!mayEdit} type="number" min={1} required value={row.duration_value} onInput={(event) => change(index, { duration_value: Number(event.currentTarget.value) })} />
                    </td>
                    <td>
                      <select aria-label="Unit" disabled={!mayEdit} value={row.duration_unit} onChange={(event) => change(index, { duration_unit: event.currentTarget.value as Row['duration_unit'] })}>
                        {[...new Set([...units, row.duration_unit])].map((unit) => (
                          <option key={unit} value={unit}>
                            {unit}
                          </option>
                        ))}
                      </select>
                    </td>
                    <td>
                      <input aria-label="Devices" disabled={!mayEdit} type="number" min={1} max={100} required value={row.max_devices} onInput={(event) => change(index, { max_devices: Number(event.currentTarget.value) })} />
                    </td>
                    {mayEdit && (
                      <td>
                        <button type="button" class="danger" onClick={() => setRows(rows.filter((_, at) => at !== index))}>
                          Remove
                        </button>
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
          <Can path="/integration/stripe/set"><div class="row">
            <button type="button" disabled={tiers.length === 0} onClick={() => setRows([...rows, { price: '', subscription_id: tiers[0]?.subscription_id ?? '', duration_value: 1, duration_unit: 'months', max_devices: 1 }])}>
              Add price
            </button>
            <button type="submit" disabled={busy}>
              {connection ? 'Save connection' : 'Connect to Stripe'}
            </button>
            {connection && (
              <Can path="/integration/stripe/delete"><button
                type="button"
                class="danger"
                onClick={() =>
                  setConfirm({
                    title: 'Disconnect from Stripe?',
                    text: "Both secrets and the price map are forgotten and Stripe's events are refused from now on. Licenses made through Stripe stay.",
                    action: 'Disconnect',
                    onConfirm: disconnect,
                  })
                }
              >
                Disconnect
              </button></Can>
            )}
          </div></Can>
          {note('Connection')}
        </CardForm>
      )}
      <ConfirmDialog request={confirm} onClose={() => setConfirm(null)} />
    </section>
  );
}
