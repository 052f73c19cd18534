// LZ4 frame format (what Kafka's clients use for magic 2 batches; the broken header checksum of
// KAFKA-3160 only affects the legacy magic 0/1 message sets). liblz4's frame decoder handles
// linked blocks, block and content checksums and the optional content size.
#include "codec.h"

#ifdef SLUICE_HAVE_LZ4
#include <lz4frame.h>

namespace sluice {

namespace {
// One decompression context per thread, kept for the thread's lifetime.
struct ThreadContext {
  LZ4F_dctx* context = nullptr;
  ~ThreadContext() { LZ4F_freeDecompressionContext(context); }
};
thread_local ThreadContext threadContext;
}  // namespace

CodecOutcome Lz4Compress(const uint8_t* input, size_t length, OutputBuffer* output) {
  // Independent 64 KiB blocks and no content checksum: the Java client's reader decodes every
  // block on its own and cannot follow linked blocks.
  LZ4F_preferences_t preferences = LZ4F_INIT_PREFERENCES;
  preferences.frameInfo.blockSizeID = LZ4F_max64KB;
  preferences.frameInfo.blockMode = LZ4F_blockIndependent;
  size_t bound = LZ4F_compressFrameBound(length, &preferences);
  if (!output->Reserve(bound)) return CodecOutcome::NoMemory();
  size_t written = LZ4F_compressFrame(output->data(), bound, input, length, &preferences);
  if (LZ4F_isError(written)) return CodecOutcome::Corrupt(std::string("lz4: ") + LZ4F_getErrorName(written));
  output->set_size(written);
  return CodecOutcome::Ok();
}

CodecOutcome Lz4Decompress(const uint8_t* input, size_t length, size_t limit, OutputBuffer* output) {
  if (threadContext.context == nullptr && LZ4F_isError(LZ4F_createDecompressionContext(&threadContext.context, LZ4F_VERSION))) {
    return CodecOutcome::NoMemory();
  }
  LZ4F_dctx* context = threadContext.context;
  LZ4F_resetDecompressionContext(context);  // a previous call may have failed mid-frame
  CodecOutcome outcome = CodecOutcome::Ok();
  size_t consumed = 0;
  size_t hint = 1;  // non-zero: a frame is in progress (or about to start)
  while (consumed < length) {
    if (output->size() == output->capacity() && !GrowForDecompression(output, length, limit)) {
      outcome = CodecOutcome::NoMemory();
      break;
    }
    size_t produced = output->capacity() - output->size();
    size_t taken = length - consumed;
    hint = LZ4F_decompress(context, output->data() + output->size(), &produced, input + consumed, &taken, nullptr);
    if (LZ4F_isError(hint)) {
      outcome = CodecOutcome::Corrupt(std::string("lz4: ") + LZ4F_getErrorName(hint));
      break;
    }
    consumed += taken;
    output->set_size(output->size() + produced);
    if (output->size() > limit) {
      outcome = CodecOutcome::TooLarge(limit);
      break;
    }
  }
  // The decoder may still hold decoded bytes once all input is consumed; drain them.
  while (outcome.status == CodecStatus::kOk && hint != 0) {
    if (output->size() == output->capacity() && !GrowForDecompression(output, length, limit)) {
      outcome = CodecOutcome::NoMemory();
      break;
    }
    size_t produced = output->capacity() - output->size();
    size_t taken = 0;
    hint = LZ4F_decompress(context, output->data() + output->size(), &produced, nullptr, &taken, nullptr);
    if (LZ4F_isError(hint)) {
      outcome = CodecOutcome::Corrupt(std::string("lz4: ") + LZ4F_getErrorName(hint));
    } else if (produced == 0 && hint != 0) {
      outcome = CodecOutcome::Corrupt("lz4: truncated frame");
    } else {
      output->set_size(output->size() + produced);
      if (output->size() > limit) outcome = CodecOutcome::TooLarge(limit);
    }
  }
  return outcome;
}

}  // namespace sluice

#else

namespace sluice {
CodecOutcome Lz4Compress(const uint8_t*, size_t, OutputBuffer*) { return CodecOutcome::Unavailable("liblz4"); }
CodecOutcome Lz4Decompress(const uint8_t*, size_t, size_t, OutputBuffer*) { return CodecOutcome::Unavailable("liblz4"); }
}  // namespace sluice

#endif
