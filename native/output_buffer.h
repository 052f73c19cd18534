// A growable malloc'd byte buffer whose memory is handed to a Node Buffer without copying, or a
// fixed window over memory the caller owns (decompressInto), which never grows: a Reserve beyond
// it fails and marks the buffer exhausted, so the caller can retry with a larger window.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>

namespace sluice {

class OutputBuffer {
 public:
  OutputBuffer() = default;
  OutputBuffer(uint8_t* borrowed, size_t capacity) : data_(borrowed), capacity_(capacity), borrowed_(true) {}
  OutputBuffer(const OutputBuffer&) = delete;
  OutputBuffer& operator=(const OutputBuffer&) = delete;
  ~OutputBuffer() {
    if (!borrowed_) std::free(data_);
  }

  // Ensures room for `capacity` bytes in total; false when memory (or the borrowed window) is exhausted.
  bool Reserve(size_t capacity) {
    if (capacity <= capacity_) return true;
    if (borrowed_) {
      exhausted_ = true;
      return false;
    }
    void* grown = std::realloc(data_, capacity);
    if (grown == nullptr) return false;
    data_ = static_cast<uint8_t*>(grown);
    capacity_ = capacity;
    return true;
  }

  uint8_t* data() { return data_; }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  void set_size(size_t size) { size_ = size; }
  // A borrowed window was too small for what a codec had to write.
  bool exhausted() const { return exhausted_; }

  // Gives up ownership; the caller frees with std::free. Never called on a borrowed window.
  uint8_t* Release() {
    if (size_ < capacity_ && size_ > 0) {
      void* shrunk = std::realloc(data_, size_);
      if (shrunk != nullptr) data_ = static_cast<uint8_t*>(shrunk);
    }
    uint8_t* released = data_;
    data_ = nullptr;
    size_ = capacity_ = 0;
    return released;
  }

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
  bool borrowed_ = false;
  bool exhausted_ = false;
};

}  // namespace sluice
