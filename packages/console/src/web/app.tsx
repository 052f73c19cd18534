/** The console's frame: navigation, the cluster's status banner, and the page the route names. */
import type { ClusterStatusEvent } from '../api-types.js';
import { useClusterStatus } from './api.js';
import { MessagesPage } from './messages-page.js';
import { OverviewPage } from './overview-page.js';
import { useRoute } from './route.js';
import { TopicPage } from './topic-page.js';
import { TopicsPage } from './topics-page.js';

function StatusBanner({ status }: { status: ClusterStatusEvent | null }) {
  if (status === null || status.reachable) return null;
  return (
    <div class="banner" role="alert" id="cluster-unreachable">
      The cluster does not answer ({status.error}); showing it again as soon as it does.
    </div>
  );
}

export function App() {
  const route = useRoute();
  const { latest, generation } = useClusterStatus();
  return (
    <>
      <header>
        <span class="brand">Sluice console</span>
        <nav>
          <a href="#/" class={route.page === 'overview' ? 'current' : ''}>
            Overview
          </a>
          <a href="#/topics" class={route.page === 'overview' ? '' : 'current'}>
            Topics
          </a>
        </nav>
        <span class={latest?.reachable === false ? 'health down' : 'health'} id="cluster-health">
          {latest === null ? 'connecting' : latest.reachable ? 'connected' : 'unreachable'}
        </span>
      </header>
      <StatusBanner status={latest} />
      <main>
        {route.page === 'overview' && <OverviewPage status={latest} />}
        {route.page === 'topics' && <TopicsPage generation={generation} />}
        {route.page === 'topic' && <TopicPage topic={route.topic} generation={generation} />}
        {route.page === 'messages' && (
          <MessagesPage topic={route.topic} partition={route.partition} from={route.from} generation={generation} />
        )}
      </main>
    </>
  );
}
