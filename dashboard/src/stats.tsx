import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { call, type Answer, type App } from './api';
import { ErrorNote, Field, TableWrap, useAction } from './ui';

type Stats = Answer<'/app/stats'>['data'];

const ranges = [7, 30, 90] as const;
const totalNames = ['licenses', 'active', 'paused', 'expired', 'unused'] as const;
/** Colours readable on both the light and the dark background, told apart by dash pattern too. */
const counters = [
  { name: 'created', label: 'Created', stroke: '#2f81f7', dash: undefined },
  { name: 'activated', label: 'Activated', stroke: '#1a9f47', dash: [6, 3] },
  { name: 'logins', label: 'Logins', stroke: '#b0800e', dash: undefined },
  { name: 'auth_failures', label: 'Auth failures', stroke: '#d1242f', dash: [2, 3] },
] as const;

/** `/app/stats`: the totals now and the daily counters as a chart, with the same numbers as a table. */
export function StatsView({ app }: { app: App }) {
  const [days, setDays] = useState<(typeof ranges)[number]>(30);
  const [stats, setStats] = useState<Stats | null>(null);
  const { busy, error, run } = useAction();

  const load = () => run(async () => setStats((await call('/app/stats', { app_id: app.app_id, days })).data));
  useEffect(() => {
    void load();
  }, [app.app_id, days]);

  return (
    <section aria-labelledby="stats-title">
      <div class="row">
        <h1 id="stats-title">Statistics</h1>
        <span class="spacer" />
        <Field label="Days">
          <select name="days" value={String(days)} onChange={(event) => setDays(Number(event.currentTarget.value) as (typeof ranges)[number])}>
            {ranges.map((range) => (
              <option key={range} value={String(range)}>
                Last {range} days
              </option>
            ))}
          </select>
        </Field>
        <button type="button" disabled={busy} onClick={() => void load()}>
          Refresh
        </button>
      </div>
      <ErrorNote error={error} />
      {stats && (
        <>
          <dl class="facts totals" aria-label="Totals">
            {totalNames.map((name) => (
              <div key={name}>
                <dt>{name.charAt(0).toUpperCase() + name.slice(1)}</dt>
                <dd data-total={name}>{stats.totals[name]}</dd>
              </div>
            ))}
          </dl>
          <DailyChart days={stats.days} />
          <details>
            <summary>Daily numbers as a table</summary>
            <TableWrap>
              <table aria-label="Daily numbers">
                <thead>
                  <tr>
                    <th scope="col">Date (UTC)</th>
                    {counters.map((counter) => (
                      <th scope="col" key={counter.name}>
                        {counter.label}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {stats.days.map((day) => (
                    <tr key={day.date}>
                      <th scope="row">{day.date}</th>
                      {counters.map((counter) => (
                        <td key={counter.name}>{day[counter.name]}</td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          </details>
        </>
      )}
    </section>
  );
}

/** uPlot draws on a canvas; screen readers get the table above instead (the chart is aria-hidden). */
function DailyChart({ days }: { days: Stats['days'] }) {
  const holder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = holder.current;
    if (!element) return;
    const data: uPlot.AlignedData = [days.map((day) => Date.parse(`${day.date}T00:00:00Z`) / 1000), ...counters.map((counter) => days.map((day) => day[counter.name]))];
    const axisColour = getComputedStyle(element).color;
    const axis = { stroke: axisColour, grid: { stroke: 'rgba(128,128,128,0.2)' }, ticks: { stroke: 'rgba(128,128,128,0.4)' } };
    const width = () => Math.max(element.clientWidth, 280);
    const chart = new uPlot(
      {
        width: width(),
        height: 260,
        tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
        scales: { y: { range: (_chart, _min, max) => [0, Math.max(max, 1)] } },
        // Whole-number steps: these are counts.
        axes: [axis, { ...axis, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000, 1_000_000] }],
        series: [{ label: 'Date' }, ...counters.map((counter) => ({ label: counter.label, stroke: counter.stroke, width: 2, ...(counter.dash ? { dash: [...counter.dash] } : {}) }))],
      },
      data,
      element,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: width(), height: 260 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [days]);
  return <div class="chart" ref={holder} aria-hidden="true" />;
}
