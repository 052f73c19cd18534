// mmap/msync/munmap of a file region exposed as an external ArrayBuffer. Unmapping detaches the
// ArrayBuffer first, so JavaScript can never touch an address that is no longer mapped.
#include "mapped_file.h"

#include <sys/mman.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <iterator>
#include <memory>

#include "args.h"
#include "env_state.h"

namespace sluice {

namespace {

size_t PageSize() {
  static const size_t size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

void Unmap(Mapping* mapping) {
  if (mapping->mapped) {
    munmap(mapping->base, mapping->mappedLength);
    mapping->mapped = false;
  }
}

// mapFile(fd, offset, length, writable) -> ArrayBuffer
Napi::Value MapFile(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int fd = 0;
  uint64_t offset = 0;
  uint64_t length = 0;
  if (!ReadFd(info, 0, "mapFile: fd must be a file descriptor", &fd) ||
      !ReadIndex(info, 1, kMaxSafeInteger, "mapFile: offset must be a non-negative integer", &offset) ||
      !ReadIndex(info, 2, kMaxSafeInteger, "mapFile: length must be a non-negative integer", &length)) {
    return env.Undefined();
  }
  if (!info[3].IsBoolean()) {
    ThrowType(env, "mapFile: writable must be a boolean");
    return env.Undefined();
  }
  bool writable = info[3].As<Napi::Boolean>().Value();
  if (length == 0) {
    ThrowRange(env, "mapFile: length must be positive");
    return env.Undefined();
  }
  // Touching a mapped page past the end of the file raises SIGBUS, so refuse such ranges here.
  struct stat status {};
  if (fstat(fd, &status) != 0) {
    ErrnoError(env, errno, "fstat").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  if (offset + length > static_cast<uint64_t>(status.st_size)) {
    ThrowRange(env, "mapFile: the region extends past the end of the file");
    return env.Undefined();
  }
  uint64_t slack = offset % PageSize();
  size_t mappedLength = static_cast<size_t>(length + slack);
  void* base = mmap(nullptr, mappedLength, PROT_READ | (writable ? PROT_WRITE : 0), MAP_SHARED, fd,
                    static_cast<off_t>(offset - slack));
  if (base == MAP_FAILED) {
    ErrnoError(env, errno, "mmap").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  auto mapping = std::make_shared<Mapping>(Mapping{base, mappedLength, true});
  uint8_t* start = static_cast<uint8_t*>(base) + slack;
  auto& mappings = EnvState::Of(env)->mappings;
  // Drop records of regions already unmapped by a finalizer (garbage-collected, never unmapped).
  for (auto entry = mappings.begin(); entry != mappings.end();) {
    entry = entry->second->mapped ? std::next(entry) : mappings.erase(entry);
  }
  mappings[start] = mapping;
  // The finalizer covers a region the program forgot to unmap: it runs on garbage collection or
  // at environment teardown.
  return Napi::ArrayBuffer::New(env, start, static_cast<size_t>(length), [](Napi::Env, void*, std::shared_ptr<Mapping>* owned) {
    Unmap(owned->get());
    delete owned;
  }, new std::shared_ptr<Mapping>(mapping));
}

Mapping* FindMapping(const Napi::CallbackInfo& info, const char* message) {
  if (!info[0].IsArrayBuffer()) {
    ThrowType(info.Env(), message);
    return nullptr;
  }
  Napi::ArrayBuffer buffer = info[0].As<Napi::ArrayBuffer>();
  auto& mappings = EnvState::Of(info.Env())->mappings;
  auto found = buffer.ByteLength() == 0 ? mappings.end() : mappings.find(buffer.Data());
  if (found == mappings.end() || !found->second->mapped) {
    ThrowType(info.Env(), message);
    return nullptr;
  }
  return found->second.get();
}

// msync(buffer): flushes the whole mapping synchronously.
Napi::Value Msync(const Napi::CallbackInfo& info) {
  Mapping* mapping = FindMapping(info, "msync: argument must be a mapped ArrayBuffer of this thread");
  if (mapping == nullptr) return info.Env().Undefined();
  if (msync(mapping->base, mapping->mappedLength, MS_SYNC) != 0) {
    ErrnoError(info.Env(), errno, "msync").ThrowAsJavaScriptException();
  }
  return info.Env().Undefined();
}

// populate(buffer, offset, length): backs the pages of [offset, offset + length) of a writable
// mapping now (MADV_POPULATE_WRITE). A file system that cannot back them (a full disk, under a
// sparse file) then fails here with EFAULT instead of raising SIGBUS, which would kill the
// process, at the first write to the page. Kernels before 5.14 do not know the advice: EINVAL
// there, and the caller carries on as before.
Napi::Value Populate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Mapping* mapping = FindMapping(info, "populate: argument must be a mapped ArrayBuffer of this thread");
  if (mapping == nullptr) return env.Undefined();
  Napi::ArrayBuffer buffer = info[0].As<Napi::ArrayBuffer>();
  uint64_t offset = 0;
  uint64_t length = 0;
  if (!ReadIndex(info, 1, kMaxSafeInteger, "populate: offset must be a non-negative integer", &offset) ||
      !ReadIndex(info, 2, kMaxSafeInteger, "populate: length must be a non-negative integer", &length)) {
    return env.Undefined();
  }
  if (offset + length > buffer.ByteLength()) {
    ThrowRange(env, "populate: the range extends past the region");
    return env.Undefined();
  }
  if (length == 0) return env.Undefined();
  uint8_t* start = static_cast<uint8_t*>(buffer.Data()) + offset;
  uintptr_t page = static_cast<uintptr_t>(PageSize());
  uintptr_t first = reinterpret_cast<uintptr_t>(start) & ~(page - 1);
  uintptr_t end = reinterpret_cast<uintptr_t>(start) + length;
  if (madvise(reinterpret_cast<void*>(first), end - first, MADV_POPULATE_WRITE) != 0) {
    ErrnoError(env, errno, "madvise(MADV_POPULATE_WRITE)").ThrowAsJavaScriptException();
  }
  return env.Undefined();
}

// unmap(buffer): detaches the ArrayBuffer, then unmaps.
Napi::Value UnmapFile(const Napi::CallbackInfo& info) {
  Mapping* mapping = FindMapping(info, "unmap: argument must be a mapped ArrayBuffer of this thread");
  if (mapping == nullptr) return info.Env().Undefined();
  Napi::ArrayBuffer buffer = info[0].As<Napi::ArrayBuffer>();
  EnvState::Of(info.Env())->mappings.erase(buffer.Data());
  buffer.Detach();
  Unmap(mapping);
  return info.Env().Undefined();
}

}  // namespace

void RegisterMappedFile(Napi::Env env, Napi::Object exports) {
  exports.Set("mapFile", Napi::Function::New(env, MapFile, "mapFile"));
  exports.Set("msync", Napi::Function::New(env, Msync, "msync"));
  exports.Set("unmap", Napi::Function::New(env, UnmapFile, "unmap"));
  exports.Set("populate", Napi::Function::New(env, Populate, "populate"));
}

}  // namespace sluice
