#pragma once
#include <napi.h>

namespace sluice {
void RegisterSendFile(Napi::Env env, Napi::Object exports);
}
