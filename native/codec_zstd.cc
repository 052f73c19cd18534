// Zstandard. Streaming producers (the Java client's ZstdOutputStream, librdkafka) write frames
// without a content-size field, so decoding streams into a growing buffer rather than trusting a
// declared size; concatenated frames are decoded one after another.
#include "codec.h"

#ifdef SLUICE_HAVE_ZSTD
#include <zstd.h>

namespace sluice {

namespace {
constexpr int kKafkaDefaultLevel = 3;  // compression.zstd.level default

// Contexts cost hundreds of KiB to set up, so each thread (main, workers, thread pool) keeps
// one of each for its lifetime.
struct ThreadContexts {
  ZSTD_CCtx* compress = nullptr;
  ZSTD_DCtx* decompress = nullptr;
  ~ThreadContexts() {
    ZSTD_freeCCtx(compress);
    ZSTD_freeDCtx(decompress);
  }
};
thread_local ThreadContexts contexts;
}  // namespace

CodecOutcome ZstdCompress(const uint8_t* input, size_t length, OutputBuffer* output) {
  size_t bound = ZSTD_compressBound(length);
  if (!output->Reserve(bound)) return CodecOutcome::NoMemory();
  if (contexts.compress == nullptr && (contexts.compress = ZSTD_createCCtx()) == nullptr) return CodecOutcome::NoMemory();
  size_t written = ZSTD_compressCCtx(contexts.compress, output->data(), bound, input, length, kKafkaDefaultLevel);
  if (ZSTD_isError(written)) return CodecOutcome::Corrupt(std::string("zstd: ") + ZSTD_getErrorName(written));
  output->set_size(written);
  return CodecOutcome::Ok();
}

CodecOutcome ZstdDecompress(const uint8_t* input, size_t length, size_t limit, OutputBuffer* output) {
  if (contexts.decompress == nullptr && (contexts.decompress = ZSTD_createDCtx()) == nullptr) return CodecOutcome::NoMemory();
  ZSTD_DCtx* context = contexts.decompress;
  ZSTD_DCtx_reset(context, ZSTD_reset_session_only);  // a previous call may have failed mid-frame
  // A declared size is only a hint (the data may lie), but it saves regrowing the output.
  unsigned long long declared = ZSTD_getFrameContentSize(input, length);
  if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != ZSTD_CONTENTSIZE_ERROR && declared <= limit &&
      !output->Reserve(static_cast<size_t>(declared) + 1)) {
    return CodecOutcome::NoMemory();
  }
  CodecOutcome outcome = CodecOutcome::Ok();
  ZSTD_inBuffer in{input, length, 0};
  size_t hint = 1;  // non-zero: a frame is in progress
  if (length == 0) outcome = CodecOutcome::Corrupt("zstd: empty input");
  while (outcome.status == CodecStatus::kOk && (in.pos < in.size || hint != 0)) {
    if (output->size() == output->capacity() && !GrowForDecompression(output, length, limit)) {
      outcome = CodecOutcome::NoMemory();
      break;
    }
    ZSTD_outBuffer out{output->data(), output->capacity(), output->size()};
    size_t before = in.pos;
    hint = ZSTD_decompressStream(context, &out, &in);
    if (ZSTD_isError(hint)) {
      outcome = CodecOutcome::Corrupt(std::string("zstd: ") + ZSTD_getErrorName(hint));
      break;
    }
    bool progressed = in.pos != before || out.pos != output->size();
    output->set_size(out.pos);
    if (output->size() > limit) {
      outcome = CodecOutcome::TooLarge(limit);
    } else if (!progressed && out.pos < out.size) {
      outcome = CodecOutcome::Corrupt("zstd: truncated frame");
    }
  }
  return outcome;
}

}  // namespace sluice

#else

namespace sluice {
CodecOutcome ZstdCompress(const uint8_t*, size_t, OutputBuffer*) { return CodecOutcome::Unavailable("libzstd"); }
CodecOutcome ZstdDecompress(const uint8_t*, size_t, size_t, OutputBuffer*) { return CodecOutcome::Unavailable("libzstd"); }
}  // namespace sluice

#endif
