#pragma once
#include <napi.h>
#include <cstddef>
#include <cstdint>

namespace sluice {

// CRC-32C state is the finished value of the previous call (0 to start), as in Kafka.
uint32_t Crc32cPortable(uint32_t crc, const uint8_t* data, size_t length);
uint32_t Crc32c(uint32_t crc, const uint8_t* data, size_t length);
bool Crc32cHardware();

void RegisterCrc32c(Napi::Env env, Napi::Object exports);

}  // namespace sluice
