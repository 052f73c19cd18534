// The produce path's per-record checks of an uncompressed magic-2 batch, for the common case
// where every record passes: well formed (Kafka's DefaultRecord framing: each length inside the
// record's body, the body exactly as long as its prefix, exactly `count` records filling the
// section), offset deltas 0, 1, 2..., a key on every record where the topic is compacted, and
// every timestamp delta inside the window. It answers only "all pass"; any other answer sends
// the batch to the TypeScript walk (record-reader.ts, batch-validator.ts), which is the
// reference for every error and its message. So it may refuse what that walk accepts, never
// the other way round.
#include "record_scan.h"

#include <cmath>
#include <cstdint>

#include "args.h"

namespace sluice {

namespace {

// A zigzag varint (Unsigned = uint32_t: at most 5 bytes, bits past 32 dropped, as Kafka's
// ByteUtils.readVarint) or varlong (uint64_t: at most 10 bytes, as readVarlong).
template <typename Unsigned>
bool ReadZigzag(const uint8_t* data, size_t end, size_t* at, int64_t* out) {
  constexpr int kMaxShift = sizeof(Unsigned) == 4 ? 35 : 70;
  Unsigned raw = 0;
  for (int shift = 0; shift < kMaxShift; shift += 7) {
    if (*at >= end) return false;
    uint8_t b = data[(*at)++];
    raw |= static_cast<Unsigned>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      Unsigned decoded = (raw >> 1) ^ (~(raw & 1) + 1);
      *out = sizeof(Unsigned) == 4 ? static_cast<int64_t>(static_cast<int32_t>(decoded)) : static_cast<int64_t>(decoded);
      return true;
    }
  }
  return false;
}

bool ReadVarint(const uint8_t* data, size_t end, size_t* at, int64_t* out) { return ReadZigzag<uint32_t>(data, end, at, out); }
bool ReadVarlong(const uint8_t* data, size_t end, size_t* at, int64_t* out) { return ReadZigzag<uint64_t>(data, end, at, out); }

// Moves past a nullable field (any negative length is null); false if it would pass `end`.
bool SkipNullable(int64_t length, size_t end, size_t* at) {
  if (length < 0) return true;
  if (static_cast<uint64_t>(length) > end - *at) return false;
  *at += static_cast<size_t>(length);
  return true;
}

// Timestamp deltas this far from zero are compared exactly by the TypeScript walk (the window's
// bounds arrive as doubles, exact below 2^53).
constexpr int64_t kExactDelta = int64_t{1} << 53;

// recordsPass(section, count, deltaLo, deltaHi, requireKeys) -> true when every record passes.
Napi::Value RecordsPass(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ByteView section;
  uint64_t count = 0;
  if (!ReadBytes(info, 0, "recordsPass: section must be a Uint8Array", &section) ||
      !ReadIndex(info, 1, INT32_MAX, "recordsPass: count must be a non-negative integer", &count)) {
    return env.Undefined();
  }
  if (!info[2].IsNumber() || !info[3].IsNumber() || !info[4].IsBoolean()) {
    ThrowType(env, "recordsPass: deltaLo and deltaHi must be numbers, requireKeys a boolean");
    return env.Undefined();
  }
  const double lo = info[2].As<Napi::Number>().DoubleValue();
  const double hi = info[3].As<Napi::Number>().DoubleValue();
  const bool requireKeys = info[4].As<Napi::Boolean>().Value();
  const uint8_t* data = section.data;
  const size_t sectionEnd = section.length;
  size_t at = 0;
  for (uint64_t index = 0; index < count; index++) {
    int64_t bodyLength = 0;
    if (!ReadVarint(data, sectionEnd, &at, &bodyLength) || bodyLength <= 0 || static_cast<uint64_t>(bodyLength) > sectionEnd - at) {
      return Napi::Boolean::New(env, false);
    }
    const size_t end = at + static_cast<size_t>(bodyLength);
    at++;  // record attributes: unused by magic 2
    int64_t timestampDelta = 0;
    int64_t offsetDelta = 0;
    int64_t keyLength = 0;
    int64_t valueLength = 0;
    int64_t headerCount = 0;
    if (!ReadVarlong(data, end, &at, &timestampDelta) || !ReadVarint(data, end, &at, &offsetDelta) ||
        static_cast<uint64_t>(offsetDelta) != index || !ReadVarint(data, end, &at, &keyLength) ||
        (requireKeys && keyLength < 0) || !SkipNullable(keyLength, end, &at) || !ReadVarint(data, end, &at, &valueLength) ||
        !SkipNullable(valueLength, end, &at) || !ReadVarint(data, end, &at, &headerCount) || headerCount < 0 ||
        static_cast<uint64_t>(headerCount) > end - at) {
      return Napi::Boolean::New(env, false);
    }
    for (int64_t h = 0; h < headerCount; h++) {
      int64_t headerKeyLength = 0;
      int64_t headerValueLength = 0;
      if (!ReadVarint(data, end, &at, &headerKeyLength) || headerKeyLength < 0 || !SkipNullable(headerKeyLength, end, &at) ||
          !ReadVarint(data, end, &at, &headerValueLength) || !SkipNullable(headerValueLength, end, &at)) {
        return Napi::Boolean::New(env, false);
      }
    }
    if (at != end) return Napi::Boolean::New(env, false);
    if (timestampDelta >= kExactDelta || timestampDelta <= -kExactDelta) return Napi::Boolean::New(env, false);
    const double delta = static_cast<double>(timestampDelta);
    if (!(delta >= lo && delta <= hi)) return Napi::Boolean::New(env, false);
  }
  return Napi::Boolean::New(env, at == sectionEnd);
}

}  // namespace

void RegisterRecordScan(Napi::Env env, Napi::Object exports) {
  exports.Set("recordsPass", Napi::Function::New(env, RecordsPass, "recordsPass"));
}

}  // namespace sluice
