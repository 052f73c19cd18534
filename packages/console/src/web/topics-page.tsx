/** Every topic, filtered by a search box: partitions, replication factor, under-replicated partitions. */
import { useState } from 'preact/hooks';
import type { TopicSummaryView } from '../api-types.js';
import { useJson } from './api.js';
import { LoadedView } from './common.js';
import { href } from './route.js';

export function TopicsPage({ generation }: { generation: number }) {
  const loaded = useJson<TopicSummaryView[]>('/api/topics', generation);
  const [search, setSearch] = useState('');
  const [showInternal, setShowInternal] = useState(false);
  return (
    <section>
      <h1>Topics</h1>
      <div class="toolbar">
        <input
          type="search"
          placeholder="Search topics"
          aria-label="Search topics"
          value={search}
          onInput={(e) => setSearch(e.currentTarget.value)}
        />
        <label>
          <input type="checkbox" checked={showInternal} onChange={(e) => setShowInternal(e.currentTarget.checked)} /> internal topics
        </label>
      </div>
      <LoadedView loaded={loaded}>
        {(all) => {
          const needle = search.trim().toLowerCase();
          const shown = all.filter((t) => (showInternal || !t.internal) && t.name.toLowerCase().includes(needle));
          return (
            <table class="topics">
              <thead>
                <tr>
                  <th>Topic</th>
                  <th>Partitions</th>
                  <th>Replication factor</th>
                  <th>Under-replicated</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((t) => (
                  <tr key={t.name}>
                    <td>
                      <a href={href({ page: 'topic', topic: t.name })}>{t.name}</a>
                    </td>
                    <td>{t.partitions}</td>
                    <td>{t.replicationFactor}</td>
                    <td class={t.underReplicatedPartitions > 0 ? 'warn' : ''}>{t.underReplicatedPartitions}</td>
                  </tr>
                ))}
                {shown.length === 0 && (
                  <tr>
                    <td colSpan={4} class="muted">
                      No topic matches.
                    </td>
                  </tr>
                )}
              </tbody>
            </table>
          );
        }}
      </LoadedView>
    </section>
  );
}
