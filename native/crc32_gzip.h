#pragma once
#include <cstddef>
#include <cstdint>

namespace sluice {

// The CRC-32 of `data` as gzip's trailer carries it (ISO-HDLC, reflected 0x04C11DB7).
uint32_t Crc32Gzip(const uint8_t* data, size_t length);

}  // namespace sluice
