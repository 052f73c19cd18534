// gzip as Kafka carries it: one or more gzip members, bytes after the last member ignored, read
// as node:zlib's gunzip reads them (which `decompress` uses, so both refuse the same input): a
// byte 0x1f after a member starts another one. Only decompression lives here, for
// decompressInto; compression and the allocating calls stay with node:zlib.
#include "codec.h"

#ifdef SLUICE_HAVE_ZLIB
#include <zlib.h>

#include <climits>

namespace sluice {

namespace {

// One inflate stream per thread, kept for the thread's lifetime and reset per call.
struct ThreadStream {
  z_stream stream{};
  bool ready = false;
  ~ThreadStream() {
    if (ready) inflateEnd(&stream);
  }
};
thread_local ThreadStream threadStream;

constexpr int kGzipWindowBits = 15 + 16;  // gzip framing only, as GZIPInputStream

bool StartsMember(const uint8_t* input, size_t length) { return length >= 1 && input[0] == 0x1f; }

CodecOutcome Corrupt(const z_stream& stream, const char* fallback) {
  return CodecOutcome::Corrupt(std::string("gzip: ") + (stream.msg != nullptr ? stream.msg : fallback));
}

}  // namespace

CodecOutcome GzipDecompress(const uint8_t* input, size_t length, size_t limit, OutputBuffer* output) {
  if (length == 0) return CodecOutcome::Corrupt("gzip: empty input");
  if (length > UINT_MAX) return CodecOutcome::TooLarge(limit);
  z_stream& stream = threadStream.stream;
  if (!threadStream.ready) {
    if (inflateInit2(&stream, kGzipWindowBits) != Z_OK) return CodecOutcome::NoMemory();
    threadStream.ready = true;
  } else if (inflateReset(&stream) != Z_OK) {
    return CodecOutcome::NoMemory();
  }
  stream.next_in = const_cast<Bytef*>(input);
  stream.avail_in = static_cast<uInt>(length);
  for (;;) {
    if (output->size() == output->capacity() && !GrowForDecompression(output, length, limit)) return CodecOutcome::NoMemory();
    size_t room = output->capacity() - output->size();
    uInt offered = room > UINT_MAX ? UINT_MAX : static_cast<uInt>(room);
    stream.next_out = output->data() + output->size();
    stream.avail_out = offered;
    int status = inflate(&stream, Z_NO_FLUSH);
    output->set_size(output->size() + (offered - stream.avail_out));
    if (output->size() > limit) return CodecOutcome::TooLarge(limit);
    if (status == Z_STREAM_END) {
      if (!StartsMember(stream.next_in, stream.avail_in)) return CodecOutcome::Ok();
      if (inflateReset(&stream) != Z_OK) return CodecOutcome::NoMemory();
      continue;
    }
    if (status != Z_OK && status != Z_BUF_ERROR) return Corrupt(stream, "corrupt stream");
    // Without input left, a member that has not ended is cut short; otherwise the output was full.
    if (stream.avail_in == 0 && stream.avail_out != 0) return CodecOutcome::Corrupt("gzip: truncated stream");
  }
}

}  // namespace sluice

#else

namespace sluice {
CodecOutcome GzipDecompress(const uint8_t*, size_t, size_t, OutputBuffer*) { return CodecOutcome::Unavailable("zlib"); }
}  // namespace sluice

#endif
