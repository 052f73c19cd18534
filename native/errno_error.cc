#include <cerrno>
#include <cstring>
#include <string>

#include "args.h"

namespace sluice {

namespace {
const char* ErrnoName(int errnum) {
  switch (errnum) {
    case EPIPE: return "EPIPE";
    case ECONNRESET: return "ECONNRESET";
    case EBADF: return "EBADF";
    case EINVAL: return "EINVAL";
    case ENOTSOCK: return "ENOTSOCK";
    case ENOMEM: return "ENOMEM";
    case EACCES: return "EACCES";
    case ENODEV: return "ENODEV";
    case ETIMEDOUT: return "ETIMEDOUT";
    case ENOTCONN: return "ENOTCONN";
    case EIO: return "EIO";
    case EFAULT: return "EFAULT";
    case ENOSPC: return "ENOSPC";
    default: return "EUNKNOWN";
  }
}
}  // namespace

Napi::Error ErrnoError(Napi::Env env, int errnum, const char* syscall) {
  std::string message = std::string(syscall) + " failed: " + std::strerror(errnum);
  Napi::Error error = CodedError(env, ErrnoName(errnum), message);
  error.Set("errno", Napi::Number::New(env, -errnum));
  error.Set("syscall", Napi::String::New(env, syscall));
  return error;
}

}  // namespace sluice
