// JavaScript entry points for the snappy, lz4 and zstd codecs, synchronous and on the thread
// pool. (gzip is served by node:zlib on the TypeScript side.)
#include "codecs_binding.h"

#include <cstdlib>

#include "args.h"
#include "codec.h"

namespace sluice {

namespace {

const char* ErrorCode(CodecStatus status) {
  switch (status) {
    case CodecStatus::kCorrupt:
    case CodecStatus::kTooLarge: return "ERR_SLUICE_CORRUPT_MESSAGE";
    case CodecStatus::kUnavailable: return "ERR_SLUICE_CODEC_UNAVAILABLE";
    default: return "ERR_SLUICE_NO_MEMORY";
  }
}

Napi::Value ToBuffer(Napi::Env env, OutputBuffer* output) {
  size_t size = output->size();
  if (size == 0) return Napi::Buffer<uint8_t>::New(env, 0);
  uint8_t* data = output->Release();
  return Napi::Buffer<uint8_t>::New(env, data, size, [](Napi::Env, uint8_t* owned) { std::free(owned); });
}

struct Request {
  Codec codec;
  ByteView input;
  size_t limit;  // only for decompression
};

// Reads (codec, data[, limit]) and rejects anything the codecs do not serve: gzip only where
// `gzip` is set (decompressInto).
bool ReadRequest(const Napi::CallbackInfo& info, bool withLimit, Request* request, bool gzip = false) {
  const char* message = gzip ? "codec must be 1 (gzip), 2 (snappy), 3 (lz4) or 4 (zstd)" : "codec must be 2 (snappy), 3 (lz4) or 4 (zstd)";
  uint64_t codec = 0;
  if (!ReadIndex(info, 0, 255, message, &codec)) return false;
  if (codec < (gzip ? 1 : 2) || codec > 4) return ThrowRange(info.Env(), message);
  request->codec = static_cast<Codec>(codec);
  if (!ReadBytes(info, 1, "data must be a Uint8Array", &request->input)) return false;
  request->limit = 0;
  if (withLimit) {
    uint64_t limit = 0;
    if (!ReadIndex(info, 2, UINT32_MAX, "maxDecompressedBytes must be an integer in [0, 2^32)", &limit)) return false;
    request->limit = static_cast<size_t>(limit);
  }
  return true;
}

CodecOutcome Run(const Request& request, bool decompress, OutputBuffer* output) {
  if (decompress) return Decompress(request.codec, request.input.data, request.input.length, request.limit, output);
  return Compress(request.codec, request.input.data, request.input.length, output);
}

Napi::Value RunSync(const Napi::CallbackInfo& info, bool decompress) {
  Napi::Env env = info.Env();
  Request request{};
  if (!ReadRequest(info, decompress, &request)) return env.Undefined();
  OutputBuffer output;
  CodecOutcome outcome = Run(request, decompress, &output);
  if (outcome.status != CodecStatus::kOk) {
    CodedError(env, ErrorCode(outcome.status), outcome.message).ThrowAsJavaScriptException();
    return env.Undefined();
  }
  return ToBuffer(env, &output);
}

class CodecWorker : public Napi::AsyncWorker {
 public:
  CodecWorker(Napi::Function& callback, const Request& request, bool decompress, Napi::Value input)
      : Napi::AsyncWorker(callback, "sluice:codec"), request_(request), decompress_(decompress) {
    // Keeps the input's memory alive while the thread pool reads it.
    input_ = Napi::Persistent(input.As<Napi::Object>());
  }

  void Execute() override {
    outcome_ = Run(request_, decompress_, &output_);
    if (outcome_.status != CodecStatus::kOk) SetError(outcome_.message);
  }

  void OnOK() override { Callback().Call({Env().Null(), ToBuffer(Env(), &output_)}); }

  void OnError(const Napi::Error&) override {
    Callback().Call({CodedError(Env(), ErrorCode(outcome_.status), outcome_.message).Value()});
  }

 private:
  Request request_;
  bool decompress_;
  Napi::ObjectReference input_;
  OutputBuffer output_;
  CodecOutcome outcome_;
};

// decompressInto(codec, data, maxDecompressedBytes, target) -> bytes written into `target`, or -1
// when `target` is too small (and smaller than maxDecompressedBytes + 1, the size that always
// tells a bomb apart). Nothing is allocated, so a caller that reuses `target` decompresses
// without allocating or faulting in fresh pages for every batch.
Napi::Value DecompressInto(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Request request{};
  if (!ReadRequest(info, true, &request, true)) return env.Undefined();
  Napi::Value targetValue = info[3];
  if (!targetValue.IsTypedArray() || targetValue.As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array) {
    ThrowType(env, "target must be a Uint8Array");
    return env.Undefined();
  }
  Napi::Uint8Array target = targetValue.As<Napi::Uint8Array>();
  OutputBuffer output(target.Data(), target.ByteLength());
  CodecOutcome outcome = Decompress(request.codec, request.input.data, request.input.length, request.limit, &output);
  if (outcome.status == CodecStatus::kNoMemory && output.exhausted()) return Napi::Number::New(env, -1);
  if (outcome.status != CodecStatus::kOk) {
    CodedError(env, ErrorCode(outcome.status), outcome.message).ThrowAsJavaScriptException();
    return env.Undefined();
  }
  return Napi::Number::New(env, static_cast<double>(output.size()));
}

Napi::Value RunAsync(const Napi::CallbackInfo& info, bool decompress) {
  Napi::Env env = info.Env();
  Request request{};
  if (!ReadRequest(info, decompress, &request)) return env.Undefined();
  size_t callbackIndex = decompress ? 3 : 2;
  if (!info[callbackIndex].IsFunction()) {
    ThrowType(env, "callback must be a function");
    return env.Undefined();
  }
  Napi::Function callback = info[callbackIndex].As<Napi::Function>();
  (new CodecWorker(callback, request, decompress, info[1]))->Queue();
  return env.Undefined();
}

}  // namespace

void RegisterCodecs(Napi::Env env, Napi::Object exports) {
  exports.Set("compress", Napi::Function::New(env, [](const Napi::CallbackInfo& info) { return RunSync(info, false); }, "compress"));
  exports.Set("decompress", Napi::Function::New(env, [](const Napi::CallbackInfo& info) { return RunSync(info, true); }, "decompress"));
  exports.Set("decompressInto", Napi::Function::New(env, DecompressInto, "decompressInto"));
  exports.Set("compressAsync", Napi::Function::New(env, [](const Napi::CallbackInfo& info) { return RunAsync(info, false); }, "compressAsync"));
  exports.Set("decompressAsync", Napi::Function::New(env, [](const Napi::CallbackInfo& info) { return RunAsync(info, true); }, "decompressAsync"));
  Napi::Object available = Napi::Object::New(env);
  available.Set("gzip", Napi::Boolean::New(env, CodecAvailable(Codec::kGzip)));
  available.Set("snappy", Napi::Boolean::New(env, CodecAvailable(Codec::kSnappy)));
  available.Set("lz4", Napi::Boolean::New(env, CodecAvailable(Codec::kLz4)));
  available.Set("zstd", Napi::Boolean::New(env, CodecAvailable(Codec::kZstd)));
  exports.Set("codecsAvailable", available);
}

}  // namespace sluice
