import { useEffect, useRef, useState } from 'preact/hooks';
import { call, connection } from './api';

/** How often the dashboard looks again for a service it cannot reach. */
const probeEveryMs = 10_000;
/** A call under way longer than this shows that the dashboard is waiting. */
const slowAfterMs = 1_000;

function useConnection() {
  const read = () => ({ unreachable: connection.unreachable(), waiting: connection.pending() > 0 });
  const [state, setState] = useState(read);
  useEffect(() => connection.subscribe(() => setState(read())), []);
  return state;
}

/**
 * The banner above every screen: while calls wait (the client retries for up to 7 s)
 * a spinner says so; while the service cannot be reached, a banner with *Try again*
 * (and a look every 10 s). When the service answers again `onBack` runs, and the
 * screens load afresh, so none stays on what it showed during the outage.
 */
export function ConnectionBanner({ onBack }: { onBack: () => void }) {
  const { unreachable, waiting } = useConnection();
  const [slow, setSlow] = useState(false);
  useEffect(() => {
    setSlow(false);
    if (!waiting) return;
    const timer = setTimeout(() => setSlow(true), slowAfterMs);
    return () => clearTimeout(timer);
  }, [waiting]);

  const wasUnreachable = useRef(unreachable);
  useEffect(() => {
    if (wasUnreachable.current && !unreachable) onBack();
    wasUnreachable.current = unreachable;
  }, [unreachable]);

  const probe = () => void call('/app/list', {}).catch(() => undefined);
  useEffect(() => {
    if (!unreachable) return;
    const timer = setInterval(probe, probeEveryMs);
    return () => clearInterval(timer);
  }, [unreachable]);

  if (unreachable) {
    return (
      <div class="outage" role="alert">
        <span>The licensing service cannot be reached; nothing shown here is lost. The dashboard looks again every 10 seconds.</span>
        <button type="button" onClick={probe} disabled={waiting}>
          {waiting ? 'Trying…' : 'Try again'}
        </button>
        {waiting && <span class="spinner" aria-hidden="true" />}
      </div>
    );
  }
  return slow ? (
    <p class="waiting" role="status">
      <span class="spinner" aria-hidden="true" /> Waiting for the service…
    </p>
  ) : null;
}
