#include "codec.h"

namespace sluice {

bool GrowForDecompression(OutputBuffer* output, size_t inputLength, size_t limit) {
  size_t ceiling = limit + 1;
  size_t wanted = output->capacity() == 0 ? inputLength * 4 : output->capacity() * 2;
  if (wanted < 64 * 1024) wanted = 64 * 1024;
  if (wanted > ceiling) wanted = ceiling;
  return output->Reserve(wanted);
}

bool CodecAvailable(Codec codec) {
  switch (codec) {
#ifdef SLUICE_HAVE_ZLIB
    case Codec::kGzip: return true;
#endif
#ifdef SLUICE_HAVE_SNAPPY
    case Codec::kSnappy: return true;
#endif
#ifdef SLUICE_HAVE_LZ4
    case Codec::kLz4: return true;
#endif
#ifdef SLUICE_HAVE_ZSTD
    case Codec::kZstd: return true;
#endif
    default: return false;
  }
}

CodecOutcome Compress(Codec codec, const uint8_t* input, size_t length, OutputBuffer* output) {
  switch (codec) {
    case Codec::kGzip: break;
    case Codec::kSnappy: return SnappyCompress(input, length, output);
    case Codec::kLz4: return Lz4Compress(input, length, output);
    case Codec::kZstd: return ZstdCompress(input, length, output);
  }
  return CodecOutcome::Unavailable("such codec");
}

CodecOutcome Decompress(Codec codec, const uint8_t* input, size_t length, size_t limit, OutputBuffer* output) {
  switch (codec) {
    case Codec::kGzip: return GzipDecompress(input, length, limit, output);
    case Codec::kSnappy: return SnappyDecompress(input, length, limit, output);
    case Codec::kLz4: return Lz4Decompress(input, length, limit, output);
    case Codec::kZstd: return ZstdDecompress(input, length, limit, output);
  }
  return CodecOutcome::Unavailable("such codec");
}

}  // namespace sluice
