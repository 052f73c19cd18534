/** The page's routes, in the URL's hash so that the server serves one page for all of them. */
import { useEffect, useState } from 'preact/hooks';

export type Route =
  | { readonly page: 'overview' }
  | { readonly page: 'topics' }
  | { readonly page: 'topic'; readonly topic: string }
  | { readonly page: 'messages'; readonly topic: string; readonly partition: number; readonly from: string };

export function parseRoute(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#/, '').split('?');
  const parts = path
    .split('/')
    .filter((p) => p !== '')
    .map(decodeURIComponent);
  const params = new URLSearchParams(query);
  if (parts[0] === 'topics' && parts[1] !== undefined && parts[2] === 'messages') {
    return { page: 'messages', topic: parts[1], partition: Number(params.get('partition') ?? '0'), from: params.get('from') ?? 'end' };
  }
  if (parts[0] === 'topics' && parts[1] !== undefined) return { page: 'topic', topic: parts[1] };
  if (parts[0] === 'topics') return { page: 'topics' };
  return { page: 'overview' };
}

export function href(route: Route): string {
  switch (route.page) {
    case 'overview':
      return '#/';
    case 'topics':
      return '#/topics';
    case 'topic':
      return `#/topics/${encodeURIComponent(route.topic)}`;
    case 'messages':
      return `#/topics/${encodeURIComponent(route.topic)}/messages?${new URLSearchParams({ partition: String(route.partition), from: route.from }).toString()}`;
  }
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const changed = (): void => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}
