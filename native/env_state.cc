#include "env_state.h"

#include <sys/mman.h>

namespace sluice {

void EnvState::ReleaseMappings() {
  for (auto& entry : mappings) {
    Mapping* mapping = entry.second.get();
    if (mapping->mapped) {
      munmap(mapping->base, mapping->mappedLength);
      mapping->mapped = false;
    }
  }
  mappings.clear();
}

void InitEnvState(Napi::Env env) {
  auto* state = new EnvState();
  env.SetInstanceData<EnvState>(state);
  // Runs when the environment (main thread or worker) is torn down, before instance data is freed.
  env.AddCleanupHook([state]() { state->ReleaseMappings(); });
}

}  // namespace sluice
