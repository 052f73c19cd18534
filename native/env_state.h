// Per-environment state: one instance for the main thread and one for each worker that loads the
// addon. It owns the file mappings made in that environment so that a worker exiting without
// unmapping does not leak address space.
#pragma once
#include <napi.h>
#include <cstddef>
#include <memory>
#include <unordered_map>

namespace sluice {

struct Mapping {
  void* base;          // page-aligned start passed to mmap/munmap
  size_t mappedLength; // length passed to mmap/munmap
  bool mapped;
};

class EnvState {
 public:
  static EnvState* Of(Napi::Env env) { return env.GetInstanceData<EnvState>(); }

  ~EnvState() { ReleaseMappings(); }

  // Keyed by the address the ArrayBuffer exposes (the caller's offset within the first page).
  // Shared with the ArrayBuffer's finalizer, which never touches this map: at teardown the two
  // may run in either order.
  std::unordered_map<const void*, std::shared_ptr<Mapping>> mappings;

  // Unmaps what is still mapped.
  void ReleaseMappings();
};

void InitEnvState(Napi::Env env);

}  // namespace sluice
