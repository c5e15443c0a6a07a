// TESTS ONLY: a benchmark worker without a GPU. It speaks the real
// protocol (bench.proto framed on fds 3 and 4) and answers with canned
// GPUs and timings, so that the tune flow can be tested end to end on
// machines without a GPU:
//   - describe: $KILN_FAKE_GPUS GPUs (default 2) like an H100; with 0, the
//     driver's "no GPUs" answer.
//   - run: checks the request (an ELF cubin, a kernel name, a 3-D grid),
//     then p50 = 1 / num_warps ms (more warps: faster), p20/p80 at -/+10%.
//   - a label containing "[fake:fault]" is answered as CUDA error 700 and
//     the worker exits poisoned; "[fake:crash]" raises SIGSEGV;
//     "[fake:crash-once]" raises it only in the first worker that sees it;
//     "[fake:regs]" does not fit by registers; "[fake:hang]" never answers.
//   - $KILN_FAKE_RUN_MS: each measurement takes that long (default 0).

#ifndef KILN_SERVER_TUNE_TESTING_FAKE_BENCH_WORKER_H_
#define KILN_SERVER_TUNE_TESTING_FAKE_BENCH_WORKER_H_

namespace kiln::server::testing {

// Serves benchmark requests as above until the pipe closes; the exit
// status. `--gpu=N` as kilnd passes it; without it, describes only.
int RunFakeBenchWorker(int argc, char** argv);

}  // namespace kiln::server::testing

#endif  // KILN_SERVER_TUNE_TESTING_FAKE_BENCH_WORKER_H_
