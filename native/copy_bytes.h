#pragma once
#include <napi.h>

namespace sluice {
void RegisterCopyBytes(Napi::Env env, Napi::Object exports);
}
