/**
 * One partition's records, from an offset or the last ones: key, headers, timestamp, offset and
 * value, each as text. Record bytes only ever become text nodes (JSX children), never markup, so
 * a `<script>` in a value is shown, not run.
 */
import { useState } from 'preact/hooks';
import type { MessagesView, RecordView, TopicView } from '../api-types.js';
import { useJson } from './api.js';
import { LoadedView } from './common.js';
import { href } from './route.js';

const PAGE_SIZE = 50;

function go(topic: string, partition: number, from: string): void {
  location.hash = href({ page: 'messages', topic, partition, from });
}

function timestamp(ms: string): string {
  const n = Number(ms);
  return n < 0 ? '—' : new Date(n).toISOString();
}

function RecordRow({ record }: { record: RecordView }) {
  return (
    <tr class="record">
      <td>{record.offset}</td>
      <td class="nowrap">{timestamp(record.timestamp)}</td>
      <td class="key">{record.key ?? <span class="muted">null</span>}</td>
      <td class="headers">
        {record.headers.map((h, i) => (
          <div key={i}>
            <span class="header-key">{h.key}</span>: {h.value ?? <span class="muted">null</span>}
          </div>
        ))}
      </td>
      <td class="value">{record.value ?? <span class="muted">null</span>}</td>
    </tr>
  );
}

function Records({ view }: { view: MessagesView }) {
  const older = BigInt(view.fromOffset) - BigInt(PAGE_SIZE);
  const start = BigInt(view.startOffset);
  return (
    <>
      <p class="muted">
        Offsets {view.fromOffset}–{(BigInt(view.nextOffset) - 1n).toString()} of {view.startOffset}–
        {(BigInt(view.endOffset) - 1n).toString()}
      </p>
      <div class="toolbar">
        <button
          disabled={BigInt(view.fromOffset) <= start}
          onClick={() => go(view.topic, view.partition, (older < start ? start : older).toString())}
        >
          Older
        </button>
        <button disabled={view.nextOffset === view.endOffset} onClick={() => go(view.topic, view.partition, view.nextOffset)}>
          Newer
        </button>
      </div>
      <table class="messages">
        <thead>
          <tr>
            <th>Offset</th>
            <th>Timestamp</th>
            <th>Key</th>
            <th>Headers</th>
            <th>Value</th>
          </tr>
        </thead>
        <tbody>
          {view.records.map((r) => (
            <RecordRow key={r.offset} record={r} />
          ))}
          {view.records.length === 0 && (
            <tr>
              <td colSpan={5} class="muted">
                No records here.
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </>
  );
}

export function MessagesPage({
  topic,
  partition,
  from,
  generation,
}: {
  topic: string;
  partition: number;
  from: string;
  generation: number;
}) {
  const described = useJson<TopicView>(`/api/topics/${encodeURIComponent(topic)}`, generation);
  const query = new URLSearchParams({ partition: String(partition), from, limit: String(PAGE_SIZE) });
  const loaded = useJson<MessagesView>(`/api/topics/${encodeURIComponent(topic)}/messages?${query.toString()}`, generation);
  const [fromInput, setFromInput] = useState(from);
  const partitions = described.state === 'ready' ? described.data.partitions.map((p) => p.partition) : [partition];
  return (
    <section>
      <h1>
        Messages of <a href={href({ page: 'topic', topic })}>{topic}</a>
      </h1>
      <form
        class="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          go(topic, partition, fromInput.trim() === '' ? 'end' : fromInput.trim());
        }}
      >
        <label>
          Partition{' '}
          <select value={partition} onChange={(e) => go(topic, Number(e.currentTarget.value), from)}>
            {partitions.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </label>
        <label>
          From offset <input name="from" value={fromInput} size={12} onInput={(e) => setFromInput(e.currentTarget.value)} />
        </label>
        <button type="submit">Read</button>
        <button type="button" onClick={() => go(topic, partition, 'end')}>
          Latest
        </button>
      </form>
      <LoadedView loaded={loaded}>{(view) => <Records view={view} />}</LoadedView>
    </section>
  );
}
