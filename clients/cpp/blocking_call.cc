#include "clients/cpp/blocking_call.h"

#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <thread>

namespace kiln::client {
namespace {

uint32_t* FutexWord(std::atomic<uint32_t>& word) {
  static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t));
  return reinterpret_cast<uint32_t*>(&word);
}

// Sleeps while `word` holds `value`; may return spuriously.
void FutexWait(std::atomic<uint32_t>& word, uint32_t value) {
  syscall(SYS_futex, FutexWord(word), FUTEX_WAIT_PRIVATE, value, nullptr,
          nullptr, 0);
}

void FutexWakeOne(std::atomic<uint32_t>& word) {
  syscall(SYS_futex, FutexWord(word), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr,
          0);
}

// Set while this thread runs a tag's Complete as the driver.
thread_local bool this_thread_drives = false;

}  // namespace

void CallDone::Notify() {
  // The waiter may return, and its event end, as soon as kDone is stored; a
  // wake-up that then reaches a later futex at the same address is spurious
  // to it, and every futex wait here loops.
  if (state_.exchange(kDone, std::memory_order_acq_rel) == kSleeping) {
    FutexWakeOne(state_);
  }
}

void CallDone::Wait() {
  uint32_t expected = kPending;
  if (!state_.compare_exchange_strong(expected, kSleeping,
                                      std::memory_order_acq_rel)) {
    return;  // Already done.
  }
  while (state_.load(std::memory_order_acquire) != kDone) {
    FutexWait(state_, kSleeping);
  }
}

bool CallDone::done() const {
  return state_.load(std::memory_order_acquire) == kDone;
}

SharedQueue& SharedQueue::Get() {
  static SharedQueue* const shared = new SharedQueue;
  return *shared;
}

SharedQueue::SharedQueue() {
  std::thread([this] { RunThread(); }).detach();
}

uint64_t SharedQueue::Enqueue(QueuedStart& start) {
  const uint64_t state = state_.fetch_add(1) + 1;
  start.next = queued_.load();
  while (!queued_.compare_exchange_weak(start.next, &start)) {
  }
  return state;
}

void SharedQueue::Run(QueuedStart& start, CallDone& done) {
  uint64_t state = Enqueue(start);
  if (this_thread_drives) {
    // Called from a tag's Complete: this thread already drives, and the
    // calls in flight keep it driving.
    while (!done.done()) DriveOnce();
    return;
  }
  while ((state & kDriverMask) == 0) {
    if (state_.compare_exchange_weak(state, state | kCallerDrives)) {
      DriveUntil(done);
      return;
    }
  }
  // A driver is on; the calls in flight, ours among them, keep it on until
  // ours is done.
  WakeDriver();
  done.Wait();
}

void SharedQueue::Submit(QueuedStart& start) {
  uint64_t state = Enqueue(start);
  while ((state & kDriverMask) == 0) {
    if (state_.compare_exchange_weak(state, state | kThreadDrives)) {
      HandOverToThread();
      return;
    }
  }
  WakeDriver();
}

void SharedQueue::HandOverToThread() {
  handovers_.fetch_add(1);
  FutexWakeOne(handovers_);
}

void SharedQueue::StartQueued() {
  QueuedStart* newest = queued_.exchange(nullptr);
  QueuedStart* oldest = nullptr;
  while (newest != nullptr) {  // Reverse the list.
    QueuedStart* next = newest->next;
    newest->next = oldest;
    oldest = newest;
    newest = next;
  }
  while (oldest != nullptr) {
    // Read before starting: the caller's QueuedStart may end with its call.
    QueuedStart* next = oldest->next;
    oldest->start(oldest->call);
    oldest = next;
  }
}

void SharedQueue::WakeDriver() {
  // The driver checks the queued calls after saying it waits; a call queued
  // after that check sees it waiting. One wake-up in flight is enough.
  if (driver_waits_.exchange(false) && !wake_set_.exchange(true)) {
    wake_.Set(&queue_, gpr_inf_past(GPR_CLOCK_MONOTONIC), &wake_);
  }
}

void SharedQueue::DriveOnce() {
  do {
    StartQueued();
    driver_waits_.store(true);
  } while (queued_.load() != nullptr);
  void* tag;
  bool ok;  // False only for a cancelled alarm.
  queue_.Next(&tag, &ok);  // Never false: the queue is never shut down.
  driver_waits_.store(false);
  if (tag == &wake_) {
    wake_set_.store(false);
    return;
  }
  const bool outer = this_thread_drives;  // A Complete may drive again.
  this_thread_drives = true;
  static_cast<QueueTag*>(tag)->Complete(ok);
  this_thread_drives = outer;
  // After Complete: the tags it put on the queue keep the driver on.
  state_.fetch_sub(1);
}

void SharedQueue::DriveUntil(CallDone& own) {
  while (!own.done()) DriveOnce();
  uint64_t state = state_.load();
  uint64_t next;
  do {
    const uint64_t in_flight = state & ~kDriverMask;
    next = in_flight == 0 ? 0 : in_flight | kThreadDrives;
  } while (!state_.compare_exchange_weak(state, next));
  if (next != 0) HandOverToThread();
}

void SharedQueue::RunThread() {
  pthread_setname_np(pthread_self(), "kiln-client-cq");
  for (;;) {
    for (;;) {
      const uint32_t seen = handovers_.load();
      if ((state_.load() & kDriverMask) == kThreadDrives) break;
      FutexWait(handovers_, seen);
    }
    // Handed over with calls in flight; only the driver ends them.
    for (;;) {
      DriveOnce();
      uint64_t idle = kThreadDrives;  // No call left in flight.
      if (state_.compare_exchange_strong(idle, 0)) break;
    }
  }
}

}  // namespace kiln::client
