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
__attribute__((target("sse4.2"))) uint32_t Crc32cSse42(uint32_t crc, const uint8_t* data, size_t length) {
  uint64_t state = ~crc & 0xFFFFFFFFu;
  while (length > 0 && (reinterpret_cast<uintptr_t>(data) & 7) != 0) {
    state = _mm_crc32_u8(static_cast<uint32_t>(state), *data++);
    length--;
  }
  // Four independent loads per iteration keep the pipeline busy; each crc32 depends on the last.
  while (length >= 32) {
    uint64_t w0, w1, w2, w3;
    std::memcpy(&w0, data, 8);
    std::memcpy(&w1, data + 8, 8);
    std::memcpy(&w2, data + 16, 8);
    std::memcpy(&w3, data + 24, 8);
    state = _mm_crc32_u64(state, w0);
    state = _mm_crc32_u64(state, w1);
    state = _mm_crc32_u64(state, w2);
    state = _mm_crc32_u64(state, w3);
    data += 32;
    length -= 32;
  }
  while (length >= 8) {
    uint64_t word;
    std::memcpy(&word, data, 8);
    state = _mm_crc32_u64(state, word);
    data += 8;
    length -= 8;
  }
  while (length > 0) {
    state = _mm_crc32_u8(static_cast<uint32_t>(state), *data++);
    length--;
  }
  return ~static_cast<uint32_t>(state);
}
#endif

using Crc32cFunction = uint32_t (*)(uint32_t, const uint8_t*, size_t);

Crc32cFunction SelectImplementation() {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("sse4.2")) return Crc32cSse42;
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
