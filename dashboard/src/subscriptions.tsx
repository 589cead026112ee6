import { useEffect, useState } from 'preact/hooks';
import { call, type Body, type ManagementPath, type App, type Subscription } from './api';
import { ConfirmDialog, ErrorNote, Field, Notice, shortTime, useAction, type ConfirmRequest } from './ui';

export function Subscriptions({ app }: { app: App }) {
  const [subscriptions, setSubscriptions] = useState<Subscription[]>([]);
  const [notice, setNotice] = useState('');
  const [confirm, setConfirm] = useState<ConfirmRequest | null>(null);
  const { busy, error, run } = useAction();

  const load = () => run(async () => setSubscriptions((await call('/subscription/get-bulk', { app_id: app.app_id })).data));
  useEffect(() => {
    void load();
  }, [app.app_id]);

  const act = async <P extends ManagementPath>(path: P, body: Body<P>, done: string) => {
    if ((await run(() => call(path, body))) === undefined) return;
    setNotice(done);
    await load();
  };

  return (
    <section aria-labelledby="subscriptions-title">
      <h1 id="subscriptions-title">Subscriptions</h1>
      <form
        class="row card"
        aria-label="New subscription"
        onSubmit={(event) => {
          event.preventDefault();
          const form = event.currentTarget;
          const data = new FormData(form);
          void act(
            '/subscription/create',
            { app_id: app.app_id, name: String(data.get('name')).trim(), level: Number(data.get('level')), single_key_per_hwid: data.get('single_key_per_hwid') === 'on' },
            `Subscription ${String(data.get('name'))} created.`,
          ).then(() => form.reset());
        }}
      >
        <Field label="Name">
          <input name="name" required maxLength={100} />
        </Field>
        <Field label="Level">
          <input name="level" type="number" min={0} required defaultValue="1" />
        </Field>
        <label class="check">
          <input name="single_key_per_hwid" type="checkbox" /> One license per device
        </label>
        <button type="submit" disabled={busy}>
          Create subscription
        </button>
      </form>
      <Notice text={notice} />
      <ErrorNote error={error} />
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Level</th>
              <th scope="col">One per device</th>
              <th scope="col">Status</th>
              <th scope="col">Created</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {subscriptions.map((subscription) => (
              <SubscriptionRow
                key={subscription.subscription_id}
                subscription={subscription}
                busy={busy}
                onEdit={(fields, done) => void act('/subscription/edit', { subscription_id: subscription.subscription_id, ...fields }, done)}
                onDelete={() =>
                  setConfirm({
                    title: `Delete subscription ${subscription.name}?`,
                    text: 'Licenses of a deleted subscription fail /auth with SUBSCRIPTION_ERROR.',
                    action: 'Delete subscription',
                    onConfirm: () => void act('/subscription/delete', { subscription_id: subscription.subscription_id }, `Subscription ${subscription.name} deleted.`),
                  })
                }
              />
            ))}
          </tbody>
        </table>
      </div>
      <ConfirmDialog request={confirm} onClose={() => setConfirm(null)} />
    </section>
  );
}

function SubscriptionRow({
  subscription,
  busy,
  onEdit,
  onDelete,
}: {
  subscription: Subscription;
  busy: boolean;
  onEdit: (fields: Partial<Subscription>, done: string) => void;
  onDelete: () => void;
}) {
  const [name, setName] = useState(subscription.name);
  const [level, setLevel] = useState(subscription.level);
  const changed = name !== subscription.name || level !== subscription.level;
  return (
    <tr>
      <td>
        <input aria-label="Name" value={name} onInput={(event) => setName(event.currentTarget.value)} />
      </td>
      <td>
        <input aria-label="Level" type="number" min={0} value={level} onInput={(event) => setLevel(Number(event.currentTarget.value))} />
      </td>
      <td>
        <input
          type="checkbox"
          aria-label="One license per device"
          checked={subscription.single_key_per_hwid}
          disabled={busy}
          onChange={() => onEdit({ single_key_per_hwid: !subscription.single_key_per_hwid }, 'Saved.')}
        />
      </td>
      <td>
        <span class={`badge ${subscription.status}`}>{subscription.status}</span>
      </td>
      <td>{shortTime(subscription.created_at)}</td>
      <td class="row">
        <button type="button" disabled={busy || !changed} onClick={() => onEdit({ name: name.trim(), level }, 'Saved.')}>
          Save
        </button>
        <button
          type="button"
          disabled={busy}
          onClick={() => onEdit({ status: subscription.status === 'active' ? 'inactive' : 'active' }, subscription.status === 'active' ? 'Deactivated.' : 'Activated.')}
        >
          {subscription.status === 'active' ? 'Deactivate' : 'Activate'}
        </button>
        <button type="button" class="danger" disabled={busy} onClick={onDelete}>
          Delete…
        </button>
      </td>
    </tr>
  );
}
