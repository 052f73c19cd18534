/** The cluster at a glance, live from the status stream: brokers, controller, topic and partition counts. */
import type { ClusterStatusEvent } from '../api-types.js';
import { Stat } from './common.js';

export function OverviewPage({ status }: { status: ClusterStatusEvent | null }) {
  if (status === null) return <p class="muted">Connecting…</p>;
  if (!status.reachable) return <p class="muted">The cluster's state is unknown while it does not answer.</p>;
  const o = status.overview;
  return (
    <section>
      <h1>Overview</h1>
      <p class="muted">Cluster {o.clusterId ?? '(no id)'}</p>
      <div class="stats">
        <Stat label="Brokers" value={o.brokers.length} />
        <Stat label="Controller" value={o.controllerId < 0 ? 'none' : o.controllerId} warn={o.controllerId < 0} />
        <Stat label="Topics" value={o.topicCount} />
        <Stat label="Partitions" value={o.partitionCount} />
        <Stat label="Under-replicated" value={o.underReplicatedPartitions} warn={o.underReplicatedPartitions > 0} />
        <Stat label="Offline" value={o.offlinePartitions} warn={o.offlinePartitions > 0} />
      </div>
      <h2>Brokers</h2>
      <table>
        <thead>
          <tr>
            <th>Id</th>
            <th>Host</th>
            <th>Port</th>
            <th>Rack</th>
            <th>Role</th>
          </tr>
        </thead>
        <tbody>
          {o.brokers.map((b) => (
            <tr key={b.nodeId}>
              <td>{b.nodeId}</td>
              <td>{b.host}</td>
              <td>{b.port}</td>
              <td>{b.rack ?? '—'}</td>
              <td>{b.nodeId === o.controllerId ? 'controller' : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
