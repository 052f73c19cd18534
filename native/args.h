// Argument validation at the JavaScript boundary: every check throws a TypeError or RangeError
// into JavaScript and returns false, so no bad value ever reaches a system call.
#pragma once
#include <napi.h>
#include <cstddef>
#include <cstdint>

namespace sluice {

struct ByteView {
  const uint8_t* data;
  size_t length;
};

inline bool ThrowType(Napi::Env env, const char* message) {
  Napi::TypeError::New(env, message).ThrowAsJavaScriptException();
  return false;
}

inline bool ThrowRange(Napi::Env env, const char* message) {
  Napi::RangeError::New(env, message).ThrowAsJavaScriptException();
  return false;
}

// Accepts a Uint8Array (Buffer included); other views are refused because their length is not
// a byte count.
inline bool ReadBytes(const Napi::CallbackInfo& info, size_t index, const char* message, ByteView* out) {
  Napi::Value value = info[index];
  if (!value.IsTypedArray() || value.As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array) {
    return ThrowType(info.Env(), message);
  }
  Napi::Uint8Array array = value.As<Napi::Uint8Array>();
  out->data = array.Data();
  out->length = array.ByteLength();
  return true;
}

// A non-negative integer no larger than `max` (itself at most 2^53 - 1).
inline bool ReadIndex(const Napi::CallbackInfo& info, size_t index, uint64_t max, const char* message, uint64_t* out) {
  Napi::Value value = info[index];
  if (!value.IsNumber()) return ThrowType(info.Env(), message);
  double number = value.As<Napi::Number>().DoubleValue();
  if (!(number >= 0) || number != static_cast<double>(static_cast<uint64_t>(number))) {
    return ThrowType(info.Env(), message);
  }
  if (number > static_cast<double>(max)) return ThrowRange(info.Env(), message);
  *out = static_cast<uint64_t>(number);
  return true;
}

inline bool ReadFd(const Napi::CallbackInfo& info, size_t index, const char* message, int* out) {
  uint64_t fd = 0;
  if (!ReadIndex(info, index, INT32_MAX, message, &fd)) return false;
  *out = static_cast<int>(fd);
  return true;
}

constexpr uint64_t kMaxSafeInteger = (uint64_t{1} << 53) - 1;

// Errors that carry a Node-style `code` so the TypeScript layer can map them (to Kafka error
// codes, or to errno names for I/O).
inline Napi::Error CodedError(Napi::Env env, const char* code, const std::string& message) {
  Napi::Error error = Napi::Error::New(env, message);
  error.Set("code", Napi::String::New(env, code));
  return error;
}

Napi::Error ErrnoError(Napi::Env env, int errnum, const char* syscall);

}  // namespace sluice
