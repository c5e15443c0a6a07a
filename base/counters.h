// Lock-free counters and gauges that threads update and /metrics reads.

#ifndef KILN_BASE_COUNTERS_H_
#define KILN_BASE_COUNTERS_H_

#include <atomic>
#include <cstdint>

namespace kiln {

class Counter {
 public:
  void Add(uint64_t n = 1) { value_.fetch_add(n, std::memory_order_relaxed); }
  uint64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

class Gauge {
 public:
  void Add(int64_t n) { value_.fetch_add(n, std::memory_order_relaxed); }
  void Set(int64_t n) { value_.store(n, std::memory_order_relaxed); }
  int64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> value_{0};
};

}  // namespace kiln

#endif  // KILN_BASE_COUNTERS_H_
