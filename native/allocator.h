#pragma once
#include <napi.h>

namespace sluice {
void RegisterAllocator(Napi::Env env, Napi::Object exports);
}
