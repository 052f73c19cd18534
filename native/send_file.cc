// sendfile(2) from a file to a connected non-blocking socket, run on the libuv thread pool so the
// event loop never waits. The worker uses its own dup() of the socket so that the number stays
// valid even if JavaScript closes the socket meanwhile; `abort()` shuts that socket down, which
// wakes a worker blocked in poll() and makes it fail with EPIPE.
#include "send_file.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <string>

#include "args.h"

namespace sluice {

namespace {

// Linux moves at most 0x7ffff000 bytes per sendfile call.
constexpr size_t kMaxChunk = 0x7FFFF000;

struct SendTarget {
  int socketFd = -1;  // our dup, closed on the JavaScript thread once the worker is done
  bool closed = false;
};

// (socketFd, fileFd, position, length), the first four arguments of both send functions.
struct SendArgs {
  int socketFd = 0;
  int fileFd = 0;
  uint64_t position = 0;
  uint64_t length = 0;
};

bool ReadSendArgs(const Napi::CallbackInfo& info, const std::string& fn, SendArgs* out) {
  return ReadFd(info, 0, (fn + ": socketFd must be a file descriptor").c_str(), &out->socketFd) &&
         ReadFd(info, 1, (fn + ": fileFd must be a file descriptor").c_str(), &out->fileFd) &&
         ReadIndex(info, 2, kMaxSafeInteger, (fn + ": position must be a non-negative integer").c_str(), &out->position) &&
         ReadIndex(info, 3, kMaxSafeInteger, (fn + ": length must be a non-negative integer").c_str(), &out->length);
}

class SendFileWorker : public Napi::AsyncWorker {
 public:
  SendFileWorker(Napi::Function& callback, std::shared_ptr<SendTarget> target, int fileFd, off_t position, size_t length)
      : Napi::AsyncWorker(callback, "sluice:sendFile"), target_(std::move(target)), fileFd_(fileFd), position_(position), length_(length) {}

  void Execute() override {
    off_t offset = position_;
    size_t remaining = length_;
    while (remaining > 0) {
      ssize_t sent = sendfile(target_->socketFd, fileFd_, &offset, remaining < kMaxChunk ? remaining : kMaxChunk);
      if (sent > 0) {
        remaining -= static_cast<size_t>(sent);
        continue;
      }
      if (sent == 0) {
        errno_ = 0;
        SetError("sendfile: the file ended before the requested range was sent");
        return;
      }
      if (errno == EINTR) continue;
      if (errno != EAGAIN) {
        Fail(errno);
        return;
      }
      if (!WaitWritable()) return;
    }
  }

  void OnOK() override {
    CloseTarget();
    Callback().Call({Env().Null()});
  }

  void OnError(const Napi::Error& error) override {
    CloseTarget();
    if (errno_ != 0) {
      Callback().Call({ErrnoError(Env(), errno_, "sendfile").Value()});
    } else {
      Callback().Call({CodedError(Env(), "ERR_SLUICE_SENDFILE_SHORT_FILE", error.Message()).Value()});
    }
  }

 private:
  bool WaitWritable() {
    for (;;) {
      pollfd entry{target_->socketFd, POLLOUT, 0};
      int ready = poll(&entry, 1, -1);
      if (ready < 0 && errno == EINTR) continue;
      if (ready < 0) return Fail(errno);
      if (entry.revents & (POLLERR | POLLHUP | POLLNVAL)) {
        int pending = 0;
        socklen_t size = sizeof(pending);
        getsockopt(target_->socketFd, SOL_SOCKET, SO_ERROR, &pending, &size);
        return Fail(pending != 0 ? pending : EPIPE);
      }
      return true;
    }
  }

  bool Fail(int errnum) {
    errno_ = errnum;
    SetError("sendfile failed");
    return false;
  }

  void CloseTarget() {
    close(target_->socketFd);
    target_->closed = true;
  }

  std::shared_ptr<SendTarget> target_;
  int fileFd_;
  off_t position_;
  size_t length_;
  int errno_ = 0;
};

// sendFile(socketFd, fileFd, position, length, callback) -> abort function
Napi::Value SendFile(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  SendArgs args;
  if (!ReadSendArgs(info, "sendFile", &args)) return env.Undefined();
  if (!info[4].IsFunction()) {
    ThrowType(env, "sendFile: callback must be a function");
    return env.Undefined();
  }
  auto target = std::make_shared<SendTarget>();
  target->socketFd = fcntl(args.socketFd, F_DUPFD_CLOEXEC, 0);
  if (target->socketFd < 0) {
    ErrnoError(env, errno, "dup").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  Napi::Function callback = info[4].As<Napi::Function>();
  auto* worker = new SendFileWorker(callback, target, args.fileFd, static_cast<off_t>(args.position), static_cast<size_t>(args.length));
  worker->Queue();
  // Both abort and close run on the JavaScript thread, so `closed` needs no lock and abort can
  // never shut down a descriptor number that has been reused.
  return Napi::Function::New(env, [target](const Napi::CallbackInfo& call) {
    if (!target->closed) shutdown(target->socketFd, SHUT_RDWR);
    return call.Env().Undefined();
  }, "abortSendFile");
}

// sendFileNow(socketFd, fileFd, position, length) -> bytes sent before the socket would block.
// Runs on the JavaScript thread: with the file in the page cache (the common case: consumers
// read what was just written) this is one system call instead of a thread-pool round trip. A
// page-cache miss blocks the caller on the disk read, as Kafka's network threads do.
Napi::Value SendFileNow(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  SendArgs args;
  if (!ReadSendArgs(info, "sendFileNow", &args)) return env.Undefined();
  off_t offset = static_cast<off_t>(args.position);
  size_t remaining = static_cast<size_t>(args.length);
  while (remaining > 0) {
    ssize_t sent = sendfile(args.socketFd, args.fileFd, &offset, remaining < kMaxChunk ? remaining : kMaxChunk);
    if (sent > 0) {
      remaining -= static_cast<size_t>(sent);
      continue;
    }
    if (sent == 0) {
      CodedError(env, "ERR_SLUICE_SENDFILE_SHORT_FILE", "sendfile: the file ended before the requested range was sent").ThrowAsJavaScriptException();
      return env.Undefined();
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN) break;
    ErrnoError(env, errno, "sendfile").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  return Napi::Number::New(env, static_cast<double>(args.length - remaining));
}

}  // namespace

void RegisterSendFile(Napi::Env env, Napi::Object exports) {
  exports.Set("sendFile", Napi::Function::New(env, SendFile, "sendFile"));
  exports.Set("sendFileNow", Napi::Function::New(env, SendFileNow, "sendFileNow"));
}

}  // namespace sluice
