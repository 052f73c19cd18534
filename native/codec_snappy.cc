// Snappy as Kafka carries it. The Java client writes the xerial framing (snappy-java's
// SnappyOutputStream): an 8-byte magic, two big-endian int32s (version, oldest compatible
// version), then [big-endian int32 length][raw snappy block] repeated, each block holding at most
// 32 KiB of input. librdkafka writes one raw snappy block. Both readers accept both forms, so we
// read both and write xerial, which every Kafka client (and the Java broker) understands.
#include "codec.h"

#ifdef SLUICE_HAVE_SNAPPY
#include <snappy.h>

#include <cstring>
#include <vector>

namespace sluice {

namespace {

constexpr uint8_t kXerialMagic[8] = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
constexpr size_t kXerialHeaderLength = 16;
constexpr size_t kXerialBlockInput = 32 * 1024;

bool StartsWithXerialHeader(const uint8_t* input, size_t length) {
  return length >= kXerialHeaderLength && std::memcmp(input, kXerialMagic, sizeof(kXerialMagic)) == 0;
}

void PutInt32(uint8_t* out, uint32_t value) {
  out[0] = static_cast<uint8_t>(value >> 24);
  out[1] = static_cast<uint8_t>(value >> 16);
  out[2] = static_cast<uint8_t>(value >> 8);
  out[3] = static_cast<uint8_t>(value);
}

uint32_t GetInt32(const uint8_t* in) {
  return (uint32_t{in[0]} << 24) | (uint32_t{in[1]} << 16) | (uint32_t{in[2]} << 8) | uint32_t{in[3]};
}

// Appends the decompression of one raw snappy block into space reserved by the caller.
CodecOutcome AppendRawBlock(const uint8_t* block, size_t length, size_t blockSize, OutputBuffer* output) {
  if (!snappy::RawUncompress(reinterpret_cast<const char*>(block), length, reinterpret_cast<char*>(output->data() + output->size()))) {
    return CodecOutcome::Corrupt("snappy: corrupt block");
  }
  output->set_size(output->size() + blockSize);
  return CodecOutcome::Ok();
}

// The size a raw block declares, checked so that nothing is allocated beyond the limit.
CodecOutcome DeclaredSize(const uint8_t* block, size_t length, size_t* size) {
  if (!snappy::GetUncompressedLength(reinterpret_cast<const char*>(block), length, size)) {
    return CodecOutcome::Corrupt("snappy: bad block header");
  }
  return CodecOutcome::Ok();
}

struct XerialBlock {
  const uint8_t* data;
  size_t length;
  size_t size;
};

// Walks the xerial framing, collecting each block and its declared size.
CodecOutcome ScanXerial(const uint8_t* input, size_t length, size_t limit, std::vector<XerialBlock>* blocks, size_t* total) {
  size_t offset = kXerialHeaderLength;
  *total = 0;
  while (offset < length) {
    // snappy-java also reads streams concatenated with their headers repeated.
    if (StartsWithXerialHeader(input + offset, length - offset)) {
      offset += kXerialHeaderLength;
      continue;
    }
    if (length - offset < 4) return CodecOutcome::Corrupt("snappy: truncated xerial block length");
    size_t blockLength = GetInt32(input + offset);
    offset += 4;
    if (blockLength > length - offset) return CodecOutcome::Corrupt("snappy: truncated xerial block");
    XerialBlock block{input + offset, blockLength, 0};
    CodecOutcome outcome = DeclaredSize(block.data, block.length, &block.size);
    if (outcome.status != CodecStatus::kOk) return outcome;
    if (block.size > limit - *total) return CodecOutcome::TooLarge(limit);
    *total += block.size;
    blocks->push_back(block);
    offset += blockLength;
  }
  return CodecOutcome::Ok();
}

}  // namespace

CodecOutcome SnappyCompress(const uint8_t* input, size_t length, OutputBuffer* output) {
  size_t blocks = length / kXerialBlockInput + 1;
  if (!output->Reserve(kXerialHeaderLength + blocks * (4 + snappy::MaxCompressedLength(kXerialBlockInput)))) {
    return CodecOutcome::NoMemory();
  }
  uint8_t* out = output->data();
  std::memcpy(out, kXerialMagic, sizeof(kXerialMagic));
  PutInt32(out + 8, 1);
  PutInt32(out + 12, 1);
  size_t written = kXerialHeaderLength;
  for (size_t offset = 0; offset < length; offset += kXerialBlockInput) {
    size_t chunk = length - offset < kXerialBlockInput ? length - offset : kXerialBlockInput;
    size_t compressed = 0;
    snappy::RawCompress(reinterpret_cast<const char*>(input + offset), chunk, reinterpret_cast<char*>(out + written + 4), &compressed);
    PutInt32(out + written, static_cast<uint32_t>(compressed));
    written += 4 + compressed;
  }
  output->set_size(written);
  return CodecOutcome::Ok();
}

CodecOutcome SnappyDecompress(const uint8_t* input, size_t length, size_t limit, OutputBuffer* output) {
  if (!StartsWithXerialHeader(input, length)) {
    size_t size = 0;
    CodecOutcome outcome = DeclaredSize(input, length, &size);
    if (outcome.status != CodecStatus::kOk) return outcome;
    if (size > limit) return CodecOutcome::TooLarge(limit);
    if (!output->Reserve(size)) return CodecOutcome::NoMemory();
    return AppendRawBlock(input, length, size, output);
  }
  std::vector<XerialBlock> blocks;
  size_t total = 0;
  CodecOutcome outcome = ScanXerial(input, length, limit, &blocks, &total);
  if (outcome.status != CodecStatus::kOk) return outcome;
  if (!output->Reserve(total)) return CodecOutcome::NoMemory();
  for (const XerialBlock& block : blocks) {
    outcome = AppendRawBlock(block.data, block.length, block.size, output);
    if (outcome.status != CodecStatus::kOk) return outcome;
  }
  return CodecOutcome::Ok();
}

}  // namespace sluice

#else

namespace sluice {
CodecOutcome SnappyCompress(const uint8_t*, size_t, OutputBuffer*) { return CodecOutcome::Unavailable("libsnappy"); }
CodecOutcome SnappyDecompress(const uint8_t*, size_t, size_t, OutputBuffer*) { return CodecOutcome::Unavailable("libsnappy"); }
}  // namespace sluice

#endif
