#pragma once
#include <napi.h>

namespace sluice {
void RegisterRecordScan(Napi::Env env, Napi::Object exports);
}
