/**
 * Compares Sluice's decoded messages with Kafka's own JSON rendering of the same frame (its
 * generated `*JsonConverter`s): camelCase keys, int64 as JSON numbers (kept exact here, which
 * JSON.parse cannot do), uuids as text, bytes as base64, records as `<field>SizeInBytes`.
 */
import assert from 'node:assert/strict';

/** A JSON number kept as its literal text, so 64-bit values survive parsing. */
export class JsonNumber {
  constructor(readonly text: string) {}
}

export type KafkaJson = null | boolean | string | JsonNumber | KafkaJson[] | { [key: string]: KafkaJson };

export function parseKafkaJson(text: string): KafkaJson {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const value = (): KafkaJson => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const obj: { [key: string]: KafkaJson } = {};
      ws();
      if (text[i] === '}') {
        i++;
        return obj;
      }
      for (;;) {
        ws();
        const key = value();
        if (typeof key !== 'string') throw new Error(`object key expected at ${i}`);
        ws();
        if (text[i++] !== ':') throw new Error(`':' expected at ${i}`);
        obj[key] = value();
        ws();
        const sep = text[i++];
        if (sep === '}') return obj;
        if (sep !== ',') throw new Error(`',' or '}' expected at ${i}`);
      }
    }
    if (c === '[') {
      i++;
      const arr: KafkaJson[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value());
        ws();
        const sep = text[i++];
        if (sep === ']') return arr;
        if (sep !== ',') throw new Error(`',' or ']' expected at ${i}`);
      }
    }
    if (c === '"') {
      const start = i;
      i++;
      while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i++;
      return JSON.parse(text.slice(start, i)) as string;
    }
    const m = /^(?:true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i, i + 40));
    if (!m) throw new Error(`unexpected JSON at ${i}`);
    i += m[0].length;
    if (m[0] === 'true') return true;
    if (m[0] === 'false') return false;
    if (m[0] === 'null') return null;
    return new JsonNumber(m[0]);
  };
  const v = value();
  ws();
  if (i !== text.length) throw new Error(`trailing JSON at ${i}`);
  return v;
}

const RECORDS_SIZE_SUFFIX = 'SizeInBytes';

function sameNumber(ours: unknown, kafka: JsonNumber): boolean {
  if (typeof ours === 'bigint') return ours === BigInt(kafka.text);
  if (typeof ours === 'number') return ours === Number(kafka.text);
  if (Buffer.isBuffer(ours)) return ours.length === Number(kafka.text);
  return false;
}

/** Asserts that every field Kafka rendered is present in `ours` with the same value. */
export function assertSameAsKafka(ours: unknown, kafka: KafkaJson, path: string): void {
  if (kafka === null) {
    assert.equal(ours, null, `${path}: Kafka has null`);
  } else if (kafka instanceof JsonNumber) {
    assert.ok(sameNumber(ours, kafka), `${path}: Kafka has ${kafka.text}, Sluice has ${String(ours)}`);
  } else if (typeof kafka === 'string') {
    const mine = Buffer.isBuffer(ours) ? ours.toString('base64') : ours;
    assert.equal(mine, kafka, `${path}: string differs`);
  } else if (typeof kafka === 'boolean') {
    assert.equal(ours, kafka, `${path}: boolean differs`);
  } else if (Array.isArray(kafka)) {
    assert.ok(Array.isArray(ours), `${path}: Kafka has an array`);
    assert.equal(ours.length, kafka.length, `${path}: array length differs`);
    kafka.forEach((k, idx) => assertSameAsKafka(ours[idx], k, `${path}[${idx}]`));
  } else {
    assert.ok(ours !== null && typeof ours === 'object', `${path}: Kafka has an object`);
    const obj = ours as Record<string, unknown>;
    for (const [key, k] of Object.entries(kafka)) {
      const recordsField = key.endsWith(RECORDS_SIZE_SUFFIX) ? key.slice(0, -RECORDS_SIZE_SUFFIX.length) : null;
      if (recordsField !== null && !(key in obj)) {
        // Kafka renders a records field as its size when it does not serialize the records.
        const records = obj[recordsField];
        assert.ok(k instanceof JsonNumber && Buffer.isBuffer(records), `${path}.${key}: records expected`);
        assert.equal(records.length, Number(k.text), `${path}.${recordsField}: size differs`);
        continue;
      }
      assert.ok(key in obj, `${path}.${key}: Kafka has this field, Sluice does not`);
      assertSameAsKafka(obj[key], k, `${path}.${key}`);
    }
  }
}
