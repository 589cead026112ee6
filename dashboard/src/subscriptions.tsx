import type { ComponentChildren } from 'preact';
import { Can, useCan } from './access';
import { useEffect, useState } from 'preact/hooks';
import { call, type Body, type ManagementPath, type App, type Subscription } from './api';
import { formatUsageLimits, graceText, parseFeatures, parseUsageLimits } from './entitlements';
import { ConfirmDialog, Field, shortTime, TableWrap, usePlacedNotice, type ConfirmRequest } from './ui';

export function Subscriptions({ app }: { app: App }) {
  const [subscriptions, setSubscriptions] = useState<Subscription[]>([]);
  const [confirm, setConfirm] = useState<ConfirmRequest | null>(null);
  const placed = usePlacedNotice();
  const { busy, run, say, note } = placed;

  const refresh = async () => setSubscriptions((await call('/subscription/get-bulk', { app_id: app.app_id })).data);
  const load = () => run(refresh);
  useEffect(() => {
    void load();
  }, [app.app_id]);

  /** Runs the action of `at` (the form, a tier's row, or the list for a deletion), then shows the tiers as the API now has them. */
  const act = <P extends ManagementPath>(at: string, path: P, body: Body<P>, done: string) =>
    placed.act(
      at,
      async () => {
        await call(path, body);
        await refresh();
        return true;
      },
      done,
    );

  return (
    <section aria-labelledby="subscriptions-title">
      <h1 id="subscriptions-title">Subscriptions</h1>
      <Can path="/subscription/create"><form
        class="row card"
        aria-label="New subscription"
        onSubmit={(event) => {
          event.preventDefault();
          const form = event.currentTarget;
          const data = new FormData(form);
          let usageLimits;
          try {
            usageLimits = parseUsageLimits(String(data.get('usage_limits')));
          } catch (problem) {
            say('New subscription', problem as Error);
            return;
          }
          void act(
            'New subscription',
            '/subscription/create',
            {
              app_id: app.app_id,
              name: String(data.get('name')).trim(),
              level: Number(data.get('level')),
              single_key_per_hwid: data.get('single_key_per_hwid') === 'on',
              features: parseFeatures(String(data.get('features'))),
              usage_limits: usageLimits,
              grace_seconds: Number(data.get('grace_hours')) * 3600,
            },
            `Subscription ${String(data.get('name'))} created.`,
          ).then((made) => made && form.reset());
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
        <Field label="Features (comma separated)">
          <input name="features" placeholder="reports, sync" />
        </Field>
        <Field label="Usage limits (counter, limit, period, overage; one a line)">
          <textarea name="usage_limits" rows={2} spellcheck={false} placeholder="exports 50 month 5" />
        </Field>
        <Field label="Grace after expiry (hours)">
          <input name="grace_hours" type="number" min={0} max={720} defaultValue="0" />
        </Field>
        <button type="submit" disabled={busy}>
          Create subscription
        </button>
        {note('New subscription')}
      </form></Can>
      {note(null)}
      {note('Subscriptions')}
      <TableWrap>
        <table class="stack-on-phone">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Level</th>
              <th scope="col">One per device</th>
              <th scope="col">Features</th>
              <th scope="col">Usage limits</th>
              <th scope="col">Grace</th>
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
                onEdit={(fields, done) => void act(subscription.subscription_id, '/subscription/edit', { subscription_id: subscription.subscription_id, ...fields }, done)}
                onProblem={(problem) => say(subscription.subscription_id, problem as Error)}
                note={note(subscription.subscription_id)}
                onDelete={() =>
                  setConfirm({
                    title: `Delete subscription ${subscription.name}?`,
                    text: 'Licenses of a deleted subscription fail /auth with SUBSCRIPTION_ERROR.',
                    action: 'Delete subscription',
                    // Said above the list: the tier's row is gone once it is deleted.
                    onConfirm: () => void act('Subscriptions', '/subscription/delete', { subscription_id: subscription.subscription_id }, `Subscription ${subscription.name} deleted.`),
                  })
                }
              />
            ))}
          </tbody>
        </table>
      </TableWrap>
      <ConfirmDialog request={confirm} onClose={() => setConfirm(null)} />
    </section>
  );
}

function SubscriptionRow({
  subscription,
  busy,
  onEdit,
  onDelete,
  onProblem,
  note,
}: {
  subscription: Subscription;
  busy: boolean;
  onEdit: (fields: Partial<Subscription>, done: string) => void;
  onDelete: () => void;
  onProblem: (error: unknown) => void;
  note: ComponentChildren;
}) {
  const can = useCan();
  const [name, setName] = useState(subscription.name);
  const [level, setLevel] = useState(subscription.level);
  const [features, setFeatures] = useState(subscription.features.join(', '));
  const [limits, setLimits] = useState(formatUsageLimits(subscription.usage_limits));
  const [grace, setGrace] = useState(subscription.grace_seconds / 3600);
  const changed =
    name !== subscription.name ||
    level !== subscription.level ||
    features !== subscription.features.join(', ') ||
    limits !== formatUsageLimits(subscription.usage_limits) ||
    grace * 3600 !== subscription.grace_seconds;
  const save = () => {
    try {
      onEdit({ name: name.trim(), level, features: parseFeatures(features), usage_limits: parseUsageLimits(limits), grace_seconds: Math.round(grace * 3600) }, 'Saved.');
    } catch (problem) {
      onProblem(problem);
    }
  };
  return (
    <tr data-subscription={subscription.subscription_id}>
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
          disabled={busy || !can('/subscription/edit')}
          onChange={() => onEdit({ single_key_per_hwid: !subscription.single_key_per_hwid }, 'Saved.')}
        />
      </td>
      <td>
        <input aria-label="Features" value={features} onInput={(event) => setFeatures(event.currentTarget.value)} />
      </td>
      <td>
        <textarea class="limits" aria-label="Usage limits" rows={2} spellcheck={false} value={limits} onInput={(event) => setLimits(event.currentTarget.value)} />
      </td>
      <td>
        <input aria-label="Grace (hours)" type="number" min={0} max={720} value={grace} onInput={(event) => setGrace(Number(event.currentTarget.value))} />
        <span class="muted" data-field="grace">{graceText(subscription.grace_seconds)}</span>
      </td>
      <td data-label="Status">
        <span class={`badge ${subscription.status}`}>{subscription.status}</span>
      </td>
      <td data-label="Created">{shortTime(subscription.created_at)}</td>
      <td class="row actions">
        <Can path="/subscription/edit"><button type="button" disabled={busy || !changed} onClick={save}>
          Save
        </button></Can>
        <Can path="/subscription/edit"><button
          type="button"
          disabled={busy}
          onClick={() => onEdit({ status: subscription.status === 'active' ? 'inactive' : 'active' }, subscription.status === 'active' ? 'Deactivated.' : 'Activated.')}
        >
          {subscription.status === 'active' ? 'Deactivate' : 'Activate'}
        </button></Can>
        <Can path="/subscription/delete"><button type="button" class="danger" disabled={busy} onClick={onDelete}>
          Delete…
        </button></Can>
        {note}
      </td>
    </tr>
  );
}
