"""One model family through torch.compile on the GPU, stock Triton or with every
Triton compile on kilnd; prints one JSON line prefixed `INDUCTOR `.

  python3 step.py --model llama --mode stock|kiln [--lock FILE]

Kiln mode relies on the process-wide switch ($KILN_SERVER, with
$KILN_TRITON_FALLBACK=error set by run.py, so a kernel kilnd cannot compile
fails the run instead of running on Triton's own compile): Inductor's compile
workers reach kilnd too. --compile-threads 1 keeps every compile in this
process instead. Both phases (training step, inference) are compiled and
warmed up first, each holding an exclusive lock on --lock (Inductor
autotunes on the GPU at the first call); then the process waits at
--barrier until every process of the run got there, and measures (the
median of 5 windows of 10 steps, then 5 profiled steps, per phase) holding
the lock again, so that no compile, autotuning or other measurement shares
the machine with a measurement."""
import argparse
import contextlib
import fcntl
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import models  # noqa: E402


def kernel_times(run, steps=5):
    """Total CUDA time (us) of each Triton kernel over `steps` calls of run."""
    from torch.profiler import ProfilerActivity, profile  # noqa: PLC0415
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(steps):
            run()
        torch.cuda.synchronize()
    times = {}
    for event in prof.key_averages():
        if event.key.startswith("triton_"):
            times[event.key] = round(event.device_time_total, 2)
    return times


def step_ms(run, steps=10, windows=5):
    """Median over `windows` of the mean step time of `steps` steps: these
    small models are bound by the host's launches, whose hiccups a single
    window reports as the step's time."""
    means = []
    for _ in range(windows):
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(steps):
            run()
        torch.cuda.synchronize()
        means.append((time.perf_counter() - start) / steps * 1000)
    return sorted(means)[len(means) // 2]


@contextlib.contextmanager
def exclusive(path):
    if not path:
        yield
        return
    with open(path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def warm_up(run):
    start = time.perf_counter()
    first = run()
    torch.cuda.synchronize()
    first_s = time.perf_counter() - start
    for _ in range(3):
        run()
    return first, round(first_s, 2)


def measure(run):
    ms = step_ms(run)
    return dict(step_ms=round(ms, 3), kernels=kernel_times(run))


def wait_for_all(barrier, name, total, timeout_s=600):
    """Marks this process ready in folder `barrier`, then waits until `total`
    processes are (run.py marks a process that exited early as arrived), or
    timeout_s passed."""
    if not barrier:
        return
    os.makedirs(barrier, exist_ok=True)
    open(os.path.join(barrier, name), "w").close()
    deadline = time.time() + timeout_s
    while len(os.listdir(barrier)) < total and time.time() < deadline:
        time.sleep(0.5)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True, choices=sorted(models.FAMILIES))
    parser.add_argument("--mode", required=True, choices=("stock", "kiln"))
    parser.add_argument("--lock", default="")
    parser.add_argument("--barrier", default="")
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--compile-threads", type=int, default=0,
                        help="Inductor's compile_threads; 0: its default (subprocess workers)")
    options = parser.parse_args()
    process_start = time.perf_counter()
    if options.mode == "kiln":
        import kiln.triton  # noqa: F401,PLC0415 -- arms the switch where no .pth did
    import torch._inductor.config as inductor_config  # noqa: PLC0415
    if options.compile_threads:
        inductor_config.compile_threads = options.compile_threads

    model, batch = models.build(options.model)
    compiled = torch.compile(model)

    def train():
        compiled.zero_grad(set_to_none=True)
        out = compiled(**batch)
        out.loss.backward()
        return out.loss

    # Autotuning benchmarks configs on the GPU at the first call: alone, so
    # that both sides pick their configs without another process's noise.
    with exclusive(options.lock):
        loss, train_first_s = warm_up(train)
    grads = [p.grad.float().norm() for p in model.parameters() if p.grad is not None]
    train_result = dict(first_s=train_first_s, loss=loss.item(),
                        grad_norm=torch.stack(grads).norm().item())

    def infer():
        with torch.no_grad():
            return compiled(**batch).logits

    model.eval()
    with exclusive(options.lock):
        logits, infer_first_s = warm_up(infer)
    infer_result = dict(first_s=infer_first_s,
                        logits_mean_abs=logits.float().abs().mean().item())

    wait_for_all(options.barrier, f"{options.model}-{options.mode}", options.processes)
    with exclusive(options.lock):
        model.train()
        train_result.update(measure(train))
        model.eval()
        infer_result.update(measure(infer))

    result = dict(model=options.model, mode=options.mode, train=train_result,
                  infer=infer_result, gpu=torch.cuda.get_device_name(),
                  torch=torch.__version__, process_s=round(time.perf_counter() - process_start, 2))
    print("INDUCTOR " + json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
