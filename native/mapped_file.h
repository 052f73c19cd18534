#pragma once
#include <napi.h>

namespace sluice {
void RegisterMappedFile(Napi::Env env, Napi::Object exports);
}
