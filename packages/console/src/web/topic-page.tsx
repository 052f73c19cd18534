/** One topic: each partition's leader, replicas, ISR and offsets, and the topic's configs. */
import type { TopicView } from '../api-types.js';
import { useJson } from './api.js';
import { LoadedView, nodes } from './common.js';
import { href } from './route.js';

export function TopicPage({ topic, generation }: { topic: string; generation: number }) {
  const loaded = useJson<TopicView>(`/api/topics/${encodeURIComponent(topic)}`, generation);
  return (
    <section>
      <h1>
        Topic <span class="name">{topic}</span>
      </h1>
      <LoadedView loaded={loaded}>
        {(t) => (
          <>
            <h2>Partitions</h2>
            <table class="partitions">
              <thead>
                <tr>
                  <th>Partition</th>
                  <th>Leader</th>
                  <th>Replicas</th>
                  <th>ISR</th>
                  <th>Start offset</th>
                  <th>End offset</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {t.partitions.map((p) => (
                  <tr key={p.partition}>
                    <td>{p.partition}</td>
                    <td class={p.leader < 0 ? 'warn' : ''}>{p.leader < 0 ? 'none' : p.leader}</td>
                    <td>{nodes(p.replicas)}</td>
                    <td class={p.isr.length < p.replicas.length ? 'warn' : ''}>{nodes(p.isr)}</td>
                    <td>{p.startOffset ?? '—'}</td>
                    <td>{p.endOffset ?? '—'}</td>
                    <td>
                      <a href={href({ page: 'messages', topic, partition: p.partition, from: 'end' })}>Messages</a>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <h2>Configs</h2>
            <table class="configs">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Value</th>
                  <th>Source</th>
                </tr>
              </thead>
              <tbody>
                {t.configs.map((c) => (
                  <tr key={c.name}>
                    <td>{c.name}</td>
                    <td>{c.sensitive ? '(sensitive)' : (c.value ?? '—')}</td>
                    <td class="muted">{c.source}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )}
      </LoadedView>
    </section>
  );
}
