/**
 * The page's side of the API: JSON reads that fail with the server's message, and the cluster's
 * status from the server's event stream (EventSource reconnects by itself if the console restarts).
 */
import { useEffect, useState } from 'preact/hooks';
import type { ClusterStatusEvent, ErrorView } from '../api-types.js';

export class ApiRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiRequestError';
  }
}

export async function getJson<T>(path: string): Promise<T> {
  const res = await fetch(path, { headers: { accept: 'application/json' } });
  const body: unknown = await res.json();
  if (!res.ok) throw new ApiRequestError(res.status, (body as ErrorView).error);
  return body as T;
}

export type Loaded<T> =
  { readonly state: 'loading' } | { readonly state: 'failed'; readonly error: string } | { readonly state: 'ready'; readonly data: T };

/** Loads `path`, again whenever it or `generation` changes (the cluster came back, the user asked). */
export function useJson<T>(path: string, generation: number): Loaded<T> {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  useEffect(() => {
    let current = true;
    getJson<T>(path).then(
      (data) => current && setLoaded({ state: 'ready', data }),
      (err: unknown) => current && setLoaded({ state: 'failed', error: err instanceof Error ? err.message : String(err) }),
    );
    return () => {
      current = false;
    };
  }, [path, generation]);
  return loaded;
}

export interface ClusterStatus {
  readonly latest: ClusterStatusEvent | null;
  /** Counts the times the cluster became reachable: pages reload their data when it moves. */
  readonly generation: number;
}

export function useClusterStatus(): ClusterStatus {
  const [status, setStatus] = useState<ClusterStatus>({ latest: null, generation: 0 });
  useEffect(() => {
    const events = new EventSource('/api/events');
    events.addEventListener('status', (message: MessageEvent<string>) => {
      const event = JSON.parse(message.data) as ClusterStatusEvent;
      setStatus((previous) => ({
        latest: event,
        generation: event.reachable && previous.latest?.reachable === false ? previous.generation + 1 : previous.generation,
      }));
    });
    return () => events.close();
  }, []);
  return status;
}
