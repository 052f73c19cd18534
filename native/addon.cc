// Entry point of the Sluice native addon. NODE_API_MODULE makes it context-aware: Init runs once
// per environment (main thread and every worker), each with its own EnvState.
#include <napi.h>

#include "allocator.h"
#include "codecs_binding.h"
#include "copy_bytes.h"
#include "crc32c.h"
#include "env_state.h"
#include "mapped_file.h"
#include "record_scan.h"
#include "send_file.h"

static Napi::Object Init(Napi::Env env, Napi::Object exports) {
  sluice::InitEnvState(env);
  exports.Set("abiVersion", Napi::Number::New(env, 6));
  sluice::RegisterCrc32c(env, exports);
  sluice::RegisterSendFile(env, exports);
  sluice::RegisterMappedFile(env, exports);
  sluice::RegisterCodecs(env, exports);
  sluice::RegisterAllocator(env, exports);
  sluice::RegisterCopyBytes(env, exports);
  sluice::RegisterRecordScan(env, exports);
  return exports;
}

NODE_API_MODULE(sluice_native, Init)
