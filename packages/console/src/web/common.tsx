/** Small pieces every page uses: the loading and failure states, numbers and node lists. */
import type { ComponentChildren } from 'preact';
import type { Loaded } from './api.js';

export function LoadedView<T>({ loaded, children }: { loaded: Loaded<T>; children: (data: T) => ComponentChildren }) {
  if (loaded.state === 'loading') return <p class="muted">Loading…</p>;
  if (loaded.state === 'failed')
    return (
      <p class="error" role="alert">
        {loaded.error}
      </p>
    );
  return <>{children(loaded.data)}</>;
}

export function nodes(ids: readonly number[]): string {
  return ids.length === 0 ? '—' : ids.join(', ');
}

export function Stat({ label, value, warn = false }: { label: string; value: ComponentChildren; warn?: boolean }) {
  return (
    <div class={warn ? 'stat warn' : 'stat'}>
      <div class="stat-value">{value}</div>
      <div class="stat-label">{label}</div>
    </div>
  );
}
