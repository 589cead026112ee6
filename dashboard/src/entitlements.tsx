import { Can } from './access';
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { License, Subscription } from './api';
import { Field, shortTime } from './ui';

type UsageLimits = Subscription['usage_limits'];
type Period = UsageLimits[string]['period'];
const periods: readonly Period[] = ['day', 'week', 'month', 'year', 'none'];

/** Features as typed: names separated by commas or spaces. */
export function parseFeatures(text: string): string[] {
  return text.split(/[\s,]+/).filter((name) => name.length > 0);
}

/** One counter a line, `name limit period [overage]`: what an owner can type and read back. */
export function formatUsageLimits(limits: UsageLimits): string {
  return Object.entries(limits)
    .map(([name, { limit, period, overage }]) => `${name} ${limit} ${period}${overage ? ` ${overage}` : ''}`)
    .join('\n');
}

/** The lines of `formatUsageLimits` back as limits; a line that is not `name limit period [overage]` is an error naming it. */
export function parseUsageLimits(text: string): UsageLimits {
  const limits: UsageLimits = {};
  for (const line of text.split('\n').map((entry) => entry.trim()).filter(Boolean)) {
    const [name, limit, period, overage = '0', extra] = line.split(/\s+/);
    if (!name || extra !== undefined || !/^\d+$/.test(limit ?? '') || !periods.includes(period as Period) || !/^\d+$/.test(overage)) {
      throw new Error(`"${line}": write a counter as its name, limit, period (${periods.join(', ')}) and an optional overage`);
    }
    limits[name] = { limit: Number(limit), period: period as Period, overage: Number(overage) };
  }
  return limits;
}

/** Grace in words for the tier table. */
export function graceText(seconds: number): string {
  if (seconds === 0) return 'none';
  return seconds % 86400 === 0 ? `${seconds / 86400} d` : seconds % 3600 === 0 ? `${seconds / 3600} h` : `${seconds} s`;
}

/** Runs an action of card `at` ('Usage' or 'Features'), whose notice `note(at)` shows there. */
type Act = (at: 'Usage' | 'Features', path: '/license/update-features' | '/license/update-usage-limits' | '/license/reset-usage', body: Record<string, unknown>, done: string) => void;

/** A license's features and usage: one bar per counter with its reset, and the license's own features and limits to edit. */
export function LicenseEntitlements({ license, busy, act, onProblem, note }: { license: License; busy: boolean; act: Act; onProblem: (error: unknown) => void; note: (at: 'Usage' | 'Features') => ComponentChildren }) {
  const [features, setFeatures] = useState(license.features.join(', '));
  const [limits, setLimits] = useState(formatUsageLimits(license.usage_limits));
  useEffect(() => setFeatures(license.features.join(', ')), [license.features.join(',')]);
  useEffect(() => setLimits(formatUsageLimits(license.usage_limits)), [JSON.stringify(license.usage_limits)]);
  return (
    <>
      <div class="card wide" aria-label="Usage">
        <h2>Usage</h2>
        {license.usage.length === 0 ? (
          <p>No usage limit applies to this license.</p>
        ) : (
          <ul class="usage">
            {license.usage.map((counter) => {
              const allowance = counter.limit + counter.overage;
              return (
                <li key={counter.counter} data-counter={counter.counter}>
                  <div class="row">
                    <strong>{counter.counter}</strong>
                    <span>
                      {counter.used} of {counter.limit}
                      {counter.overage ? ` + ${counter.overage} overage` : ''} this {counter.period === 'none' ? 'license' : counter.period}
                    </span>
                    <span class="muted">{counter.resets_at ? `resets ${shortTime(counter.resets_at)}` : 'never resets'}</span>
                    <Can path="/license/reset-usage"><button type="button" disabled={busy || counter.used === 0} onClick={() => act('Usage', '/license/reset-usage', { counter: counter.counter }, `${counter.counter} reset to 0.`)}>
                      Reset
                    </button></Can>
                  </div>
                  <meter min={0} max={Math.max(allowance, 1)} high={counter.limit} value={counter.used} aria-label={`${counter.counter} used`} />
                </li>
              );
            })}
          </ul>
        )}
        <Can path="/license/update-usage-limits"><form
          aria-label="Usage limits"
          onSubmit={(event) => {
            event.preventDefault();
            try {
              act('Usage', '/license/update-usage-limits', { usage_limits: parseUsageLimits(limits) }, 'Usage limits saved.');
            } catch (error) {
              onProblem(error);
            }
          }}
        >
          <Field label="This license's own limits (counter, limit, period, overage; one a line; they replace the tier's counters of the same name)">
            <textarea name="usage_limits" rows={3} spellcheck={false} value={limits} onInput={(event) => setLimits(event.currentTarget.value)} />
          </Field>
          <button type="submit" disabled={busy}>
            Save usage limits
          </button>
        </form></Can>
        {note('Usage')}
      </div>

      <Can path="/license/update-features"><form
        class="card"
        aria-label="Features"
        onSubmit={(event) => {
          event.preventDefault();
          act('Features', '/license/update-features', { features: parseFeatures(features) }, 'Features saved.');
        }}
      >
        <h2>Features</h2>
        <p>
          With the tier's: <span data-field="effective_features">{license.effective_features.join(', ') || '—'}</span>
        </p>
        <Field label="This license's own features">
          <input name="features" value={features} onInput={(event) => setFeatures(event.currentTarget.value)} />
        </Field>
        <button type="submit" disabled={busy}>
          Save features
        </button>
        {note('Features')}
      </form></Can>
    </>
  );
}
