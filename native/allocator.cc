// The C allocator's trim threshold, for a broker process. Node reads every socket chunk into a
// newly allocated 64 KiB buffer, freed when the collector takes the chunk; glibc then gives the
// freed top of its heap back to the kernel (past 128 KiB by default), and the next reads fault
// those pages in again, zero-filled: a page fault for every 4 KiB a broker receives.
#include "allocator.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <cstdint>

#include "args.h"

namespace sluice {

namespace {

// keepFreedHeap(bytes) -> whether the allocator keeps up to `bytes` of freed heap for reuse
// (false where the C library has no such setting).
Napi::Value KeepFreedHeap(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  uint64_t bytes = 0;
  if (!ReadIndex(info, 0, INT32_MAX, "keepFreedHeap: bytes must be an integer in [0, 2^31)", &bytes)) return env.Undefined();
#if defined(__GLIBC__)
  return Napi::Boolean::New(env, mallopt(M_TRIM_THRESHOLD, static_cast<int>(bytes)) == 1);
#else
  return Napi::Boolean::New(env, false);
#endif
}

}  // namespace

void RegisterAllocator(Napi::Env env, Napi::Object exports) {
  exports.Set("keepFreedHeap", Napi::Function::New(env, KeepFreedHeap, "keepFreedHeap"));
}

}  // namespace sluice
