#pragma once
#include <cstddef>
#include <cstdint>

namespace sluice {

// CRC-32 as gzip's trailer carries it (ISO-HDLC, reflected 0x04C11DB7), chained like zlib's
// crc32(): the state is the finished value of the previous call, 0 to start.
uint32_t Crc32Gzip(uint32_t crc, const uint8_t* data, size_t length);

}  // namespace sluice
