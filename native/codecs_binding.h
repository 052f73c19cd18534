#pragma once
#include <napi.h>

namespace sluice {
void RegisterCodecs(Napi::Env env, Napi::Object exports);
}
