// gzip as Kafka carries it: one or more gzip members, bytes after the last member ignored, read
// as node:zlib's gunzip reads them (which `decompress` uses, so both refuse the same input): a
// byte 0x1f after a member starts another one. Only decompression lives here, for
// decompressInto; compression and the allocating calls stay with node:zlib. Each member's CRC-32
// and length are checked here rather than by zlib, whose CRC is slower than inflating the long
// runs producers send (crc32_gzip.cc); a member whose header carries its own CRC (FHCRC, which
// zlib checks only while it checks the data too) is left to zlib whole.
#include "codec.h"
#include "crc32_gzip.h"

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

constexpr uint8_t kHeaderCrcFlag = 0x02;  // FHCRC, in the flags byte at offset 3 (RFC 1952)
constexpr size_t kTrailerBytes = 8;       // CRC-32, then ISIZE, little-endian

bool HasHeaderCrc(const uint8_t* member, size_t length) { return length > 3 && (member[3] & kHeaderCrcFlag) != 0; }

uint32_t LittleEndian32(const uint8_t* bytes) {
  return uint32_t{bytes[0]} | uint32_t{bytes[1]} << 8 | uint32_t{bytes[2]} << 16 | uint32_t{bytes[3]} << 24;
}

// Starts a member at the stream's next input: zlib checks its data only when its header has a CRC.
bool StartMember(z_stream& stream, bool* zlibChecks) {
  *zlibChecks = HasHeaderCrc(stream.next_in, stream.avail_in);
  return inflateValidate(&stream, *zlibChecks ? 1 : 0) == Z_OK;
}

// At Z_STREAM_END zlib has consumed exactly the member's trailer, which ends at next_in.
CodecOutcome CheckTrailer(const z_stream& stream, const uint8_t* data, size_t length) {
  const uint8_t* trailer = stream.next_in - kTrailerBytes;
  if (LittleEndian32(trailer) != Crc32Gzip(data, length)) return CodecOutcome::Corrupt("gzip: incorrect data check");
  if (LittleEndian32(trailer + 4) != static_cast<uint32_t>(length)) return CodecOutcome::Corrupt("gzip: incorrect length check");
  return CodecOutcome::Ok();
}

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
  bool zlibChecks = false;
  if (!StartMember(stream, &zlibChecks)) return CodecOutcome::NoMemory();
  size_t memberStart = output->size();
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
      if (!zlibChecks) {
        CodecOutcome checked = CheckTrailer(stream, output->data() + memberStart, output->size() - memberStart);
        if (checked.status != CodecStatus::kOk) return checked;
      }
      if (!StartsMember(stream.next_in, stream.avail_in)) return CodecOutcome::Ok();
      if (inflateReset(&stream) != Z_OK || !StartMember(stream, &zlibChecks)) return CodecOutcome::NoMemory();
      memberStart = output->size();
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
