// CRC-32 for gzip members. zlib's crc32() runs at ~5 GB/s here; a gzip batch that inflates to
// long runs (the usual producer payload) spends more time in that check than in inflate itself.
// Carry-less multiplication folds 64 bytes a step instead (Intel's "Fast CRC Computation for
// Generic Polynomials Using PCLMULQDQ"); what is shorter than a fold, and CPUs without the
// instruction, stay with zlib.
#include "crc32_gzip.h"

#ifdef SLUICE_HAVE_ZLIB
#include <zlib.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace sluice {

namespace {

#if defined(__x86_64__)
// x^k mod P for the fold distances, bit-reflected and shifted left by one, as the method takes
// them: 4x128 bits (the main loop), 128 bits, 64 bits, then Barrett's P' and u' for 64 -> 32.
constexpr uint64_t kFold512Low = 0x154442bd4;   // x^(4*128+32) mod P
constexpr uint64_t kFold512High = 0x1c6e41596;  // x^(4*128-32) mod P
constexpr uint64_t kFold128Low = 0x1751997d0;   // x^(128+32) mod P
constexpr uint64_t kFold128High = 0x0ccaa009e;  // x^(128-32) mod P
constexpr uint64_t kFold64 = 0x163cd6124;       // x^64 mod P
constexpr uint64_t kPolynomial = 0x1db710641;   // P, reflected
constexpr uint64_t kBarrettMu = 0x1f7011641;    // floor(x^64 / P), reflected

constexpr size_t kFoldBytes = 64;

__attribute__((target("pclmul,sse4.1"))) inline __m128i Fold(__m128i value, __m128i constants, __m128i next) {
  __m128i low = _mm_clmulepi64_si128(value, constants, 0x00);
  __m128i high = _mm_clmulepi64_si128(value, constants, 0x11);
  return _mm_xor_si128(_mm_xor_si128(low, high), next);
}

__attribute__((target("pclmul,sse4.1"))) inline __m128i Load(const uint8_t* data) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(data));
}

// The state (not the finished CRC) after `length` bytes, a multiple of 16 and at least 64.
__attribute__((target("pclmul,sse4.1"))) uint32_t FoldState(uint32_t state, const uint8_t* data, size_t length) {
  __m128i x0 = _mm_xor_si128(Load(data), _mm_cvtsi32_si128(static_cast<int>(state)));
  __m128i x1 = Load(data + 16);
  __m128i x2 = Load(data + 32);
  __m128i x3 = Load(data + 48);
  data += kFoldBytes;
  length -= kFoldBytes;

  const __m128i fold512 = _mm_set_epi64x(static_cast<int64_t>(kFold512High), static_cast<int64_t>(kFold512Low));
  while (length >= kFoldBytes) {
    x0 = Fold(x0, fold512, Load(data));
    x1 = Fold(x1, fold512, Load(data + 16));
    x2 = Fold(x2, fold512, Load(data + 32));
    x3 = Fold(x3, fold512, Load(data + 48));
    data += kFoldBytes;
    length -= kFoldBytes;
  }

  const __m128i fold128 = _mm_set_epi64x(static_cast<int64_t>(kFold128High), static_cast<int64_t>(kFold128Low));
  __m128i x = Fold(x0, fold128, x1);
  x = Fold(x, fold128, x2);
  x = Fold(x, fold128, x3);
  while (length >= 16) {
    x = Fold(x, fold128, Load(data));
    data += 16;
    length -= 16;
  }

  // 128 -> 64 bits: the low half times x^(128-32) mod P, into the high half (32 zero bits appended).
  x = _mm_xor_si128(_mm_clmulepi64_si128(fold128, x, 0x01), _mm_srli_si128(x, 8));
  // 64 -> 32 bits more, then Barrett's reduction leaves the state in bits 32..63.
  const __m128i low32 = _mm_set_epi32(0, 0, 0, -1);
  const __m128i fold64 = _mm_set_epi64x(0, static_cast<int64_t>(kFold64));
  x = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(x, low32), fold64, 0x00), _mm_srli_si128(x, 4));
  const __m128i barrett = _mm_set_epi64x(static_cast<int64_t>(kBarrettMu), static_cast<int64_t>(kPolynomial));
  __m128i t = _mm_and_si128(_mm_clmulepi64_si128(_mm_and_si128(x, low32), barrett, 0x10), low32);
  t = _mm_clmulepi64_si128(t, barrett, 0x00);
  return static_cast<uint32_t>(_mm_extract_epi32(_mm_xor_si128(x, t), 1));
}

bool HasCarrylessMultiply() { return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1"); }

const bool kFolds = HasCarrylessMultiply();
#endif

}  // namespace

uint32_t Crc32Gzip(const uint8_t* data, size_t length) {
  uint32_t crc = 0;
#if defined(__x86_64__)
  if (kFolds && length >= kFoldBytes) {
    size_t folded = length & ~size_t{15};
    crc = ~FoldState(~crc, data, folded);
    data += folded;
    length -= folded;
  }
#endif
  return static_cast<uint32_t>(crc32_z(crc, data, length));
}

}  // namespace sluice

#endif
