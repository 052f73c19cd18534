// A growable malloc'd byte buffer whose memory is handed to a Node Buffer without copying.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>

namespace sluice {

class OutputBuffer {
 public:
  OutputBuffer() = default;
  OutputBuffer(const OutputBuffer&) = delete;
  OutputBuffer& operator=(const OutputBuffer&) = delete;
  ~OutputBuffer() { std::free(data_); }

  // Ensures room for `capacity` bytes in total; false when memory is exhausted.
  bool Reserve(size_t capacity) {
    if (capacity <= capacity_) return true;
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

  // Gives up ownership; the caller frees with std::free.
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
};

}  // namespace sluice
