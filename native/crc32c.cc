// CRC-32C (Castagnoli): SSE4.2 crc32 instructions when the CPU has them, checked once at load,
// otherwise slicing-by-8 tables.
#include "crc32c.h"

#include <cstring>

#include "args.h"

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace sluice {

namespace {

constexpr uint32_t kPolynomial = 0x82F63B78u;  // reflected Castagnoli

struct Tables {
  uint32_t t[8][256];
  Tables() {
    for (uint32_t n = 0; n < 256; n++) {
      uint32_t c = n;
      for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ kPolynomial : c >> 1;
      t[0][n] = c;
    }
    for (uint32_t n = 0; n < 256; n++) {
      uint32_t c = t[0][n];
      for (int k = 1; k < 8; k++) {
        c = t[0][c & 0xFF] ^ (c >> 8);
        t[k][n] = c;
      }
    }
  }
};

const Tables& PortableTables() {
  static const Tables tables;
  return tables;
}

#if defined(__x86_64__)
// The crc32 instruction has a latency of three cycles but a throughput of one, so three
// independent streams over adjacent blocks run about three times faster than one. Their states
// are then merged: the CRC state after A||B is shift(state after A, |B|) ^ (B's CRC from 0),
// where shift() feeds |B| zero bytes, a linear map precomputed as four 256-entry tables.
constexpr size_t kLongBlock = 8192;
constexpr size_t kShortBlock = 256;

struct ShiftTable {
  uint32_t t[4][256];
  explicit ShiftTable(size_t zeroBytes) {
    const auto& byteStep = PortableTables().t[0];
    uint32_t basis[32];
    for (int bit = 0; bit < 32; bit++) {
      uint32_t state = uint32_t{1} << bit;
      for (size_t n = 0; n < zeroBytes; n++) state = byteStep[state & 0xFF] ^ (state >> 8);
      basis[bit] = state;
    }
    for (int k = 0; k < 4; k++) {
      for (uint32_t b = 0; b < 256; b++) {
        uint32_t value = 0;
        for (int bit = 0; bit < 8; bit++) {
          if (b & (1u << bit)) value ^= basis[8 * k + bit];
        }
        t[k][b] = value;
      }
    }
  }
  uint32_t Shift(uint32_t state) const {
    return t[0][state & 0xFF] ^ t[1][(state >> 8) & 0xFF] ^ t[2][(state >> 16) & 0xFF] ^ t[3][state >> 24];
  }
};

const ShiftTable& LongShift() {
  static const ShiftTable table(kLongBlock);
  return table;
}

const ShiftTable& ShortShift() {
  static const ShiftTable table(kShortBlock);
  return table;
}

__attribute__((target("sse4.2"))) inline uint64_t Word(const uint8_t* data) {
  uint64_t word;
  std::memcpy(&word, data, 8);
  return word;
}

// Three interleaved streams over blocks of `block` bytes each, while at least three remain.
__attribute__((target("sse4.2"))) uint32_t Interleaved(uint32_t state, const uint8_t*& data, size_t& length, size_t block,
                                                       const ShiftTable& shift) {
  while (length >= 3 * block) {
    uint64_t c0 = state, c1 = 0, c2 = 0;
    const uint8_t* end = data + block;
    for (const uint8_t* p = data; p < end; p += 8) {
      c0 = _mm_crc32_u64(c0, Word(p));
      c1 = _mm_crc32_u64(c1, Word(p + block));
      c2 = _mm_crc32_u64(c2, Word(p + 2 * block));
    }
    state = shift.Shift(static_cast<uint32_t>(c0)) ^ static_cast<uint32_t>(c1);
    state = shift.Shift(state) ^ static_cast<uint32_t>(c2);
    data += 3 * block;
    length -= 3 * block;
  }
  return state;
}

__attribute__((target("sse4.2"))) uint32_t Crc32cSse42(uint32_t crc, const uint8_t* data, size_t length) {
  uint32_t state = ~crc;
  while (length > 0 && (reinterpret_cast<uintptr_t>(data) & 7) != 0) {
    state = _mm_crc32_u8(state, *data++);
    length--;
  }
  state = Interleaved(state, data, length, kLongBlock, LongShift());
  state = Interleaved(state, data, length, kShortBlock, ShortShift());
  uint64_t wide = state;
  while (length >= 8) {
    wide = _mm_crc32_u64(wide, Word(data));
    data += 8;
    length -= 8;
  }
  state = static_cast<uint32_t>(wide);
  while (length > 0) {
    state = _mm_crc32_u8(state, *data++);
    length--;
  }
  return ~state;
}
#endif

using Crc32cFunction = uint32_t (*)(uint32_t, const uint8_t*, size_t);

Crc32cFunction SelectImplementation() {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("sse4.2")) {
    LongShift();  // build the tables now rather than inside the first call
    ShortShift();
    return Crc32cSse42;
  }
#endif
  return Crc32cPortable;
}

const Crc32cFunction kSelected = SelectImplementation();

Napi::Value CallCrc32c(const Napi::CallbackInfo& info, Crc32cFunction function) {
  ByteView bytes{};
  if (!ReadBytes(info, 0, "crc32c: data must be a Uint8Array", &bytes)) return info.Env().Undefined();
  uint64_t seed = 0;
  if (!info[1].IsUndefined() && !ReadIndex(info, 1, UINT32_MAX, "crc32c: seed must be a uint32", &seed)) {
    return info.Env().Undefined();
  }
  return Napi::Number::New(info.Env(), function(static_cast<uint32_t>(seed), bytes.data, bytes.length));
}

}  // namespace

uint32_t Crc32cPortable(uint32_t crc, const uint8_t* data, size_t length) {
  const auto& t = PortableTables().t;
  uint32_t c = ~crc;
  while (length >= 8) {
    uint32_t low;
    std::memcpy(&low, data, 4);  // little-endian host assumed (x86-64, arm64)
    low ^= c;
    c = t[7][low & 0xFF] ^ t[6][(low >> 8) & 0xFF] ^ t[5][(low >> 16) & 0xFF] ^ t[4][low >> 24] ^
        t[3][data[4]] ^ t[2][data[5]] ^ t[1][data[6]] ^ t[0][data[7]];
    data += 8;
    length -= 8;
  }
  while (length > 0) {
    c = t[0][(c ^ *data++) & 0xFF] ^ (c >> 8);
    length--;
  }
  return ~c;
}

uint32_t Crc32c(uint32_t crc, const uint8_t* data, size_t length) { return kSelected(crc, data, length); }

bool Crc32cHardware() { return kSelected != Crc32cPortable; }

void RegisterCrc32c(Napi::Env env, Napi::Object exports) {
  exports.Set("crc32c", Napi::Function::New(env, [](const Napi::CallbackInfo& info) { return CallCrc32c(info, kSelected); }, "crc32c"));
  exports.Set("crc32cPortable",
              Napi::Function::New(env, [](const Napi::CallbackInfo& info) { return CallCrc32c(info, Crc32cPortable); }, "crc32cPortable"));
  exports.Set("crc32cImplementation", Napi::String::New(env, Crc32cHardware() ? "sse4.2" : "portable"));
}

}  // namespace sluice
