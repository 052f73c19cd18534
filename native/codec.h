// The compression codecs behind Kafka's attribute numbers, as plain functions with no JavaScript
// in them, so they can run on the main thread or in an AsyncWorker alike.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "output_buffer.h"

namespace sluice {

enum class CodecStatus { kOk, kCorrupt, kTooLarge, kUnavailable, kNoMemory };

struct CodecOutcome {
  CodecStatus status = CodecStatus::kOk;
  std::string message;

  static CodecOutcome Ok() { return {}; }
  static CodecOutcome Corrupt(std::string why) { return {CodecStatus::kCorrupt, std::move(why)}; }
  static CodecOutcome TooLarge(size_t limit) {
    return {CodecStatus::kTooLarge, "decompressed size exceeds the limit of " + std::to_string(limit) + " bytes"};
  }
  static CodecOutcome NoMemory() { return {CodecStatus::kNoMemory, "out of memory"}; }
  static CodecOutcome Unavailable(const char* library) {
    return {CodecStatus::kUnavailable, std::string("this build has no ") + library};
  }
};

// Kafka's record batch attribute values for the compression type.
// gzip is here for decompression only (decompressInto); node:zlib compresses it.
enum class Codec { kGzip = 1, kSnappy = 2, kLz4 = 3, kZstd = 4 };

bool CodecAvailable(Codec codec);
CodecOutcome Compress(Codec codec, const uint8_t* input, size_t length, OutputBuffer* output);
// Fails with kTooLarge rather than produce more than `limit` bytes.
CodecOutcome Decompress(Codec codec, const uint8_t* input, size_t length, size_t limit, OutputBuffer* output);

// Each codec file implements its pair; they are dispatched in codec.cc.
CodecOutcome GzipDecompress(const uint8_t* input, size_t length, size_t limit, OutputBuffer* output);
CodecOutcome SnappyCompress(const uint8_t* input, size_t length, OutputBuffer* output);
CodecOutcome SnappyDecompress(const uint8_t* input, size_t length, size_t limit, OutputBuffer* output);
CodecOutcome Lz4Compress(const uint8_t* input, size_t length, OutputBuffer* output);
CodecOutcome Lz4Decompress(const uint8_t* input, size_t length, size_t limit, OutputBuffer* output);
CodecOutcome ZstdCompress(const uint8_t* input, size_t length, OutputBuffer* output);
CodecOutcome ZstdDecompress(const uint8_t* input, size_t length, size_t limit, OutputBuffer* output);

// Streaming decoders grow their output geometrically up to limit + 1 bytes: producing that last
// byte is how a decompression bomb is told apart from output of exactly `limit` bytes.
bool GrowForDecompression(OutputBuffer* output, size_t inputLength, size_t limit);

}  // namespace sluice
