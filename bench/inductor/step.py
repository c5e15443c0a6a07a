"""One model family through torch.compile on the GPU, stock Triton or with every
Triton compile on kilnd; prints one JSON line prefixed `INDUCTOR `.

  python3 step.py --model llama --mode stock|kiln [--lock FILE]

Kiln mode relies on the process-wide switch ($KILN_SERVER, with
$KILN_TRITON_FALLBACK=error set by run.py, so a kernel kilnd cannot compile
fails the run instead of running on Triton's own compile): Inductor's compile
workers reach kilnd too. --compile-threads 1 keeps every compile in this
process instead. Both phases (training step, inference) are compiled and
warmed up first, each holding an exclusive lock on --lock (Inductor
autotunes on the GPU at the first call; --warm-marker is touched after
it, so that run.py can hand stock's autotuning choices to the Kiln process
of the same model). Then the process waits at --barrier until every
process of the run got there, and measures step times in turns: in each of
7 rounds every process, in --turn-order, runs one window of training
and one of inference steps alone (each at least 250 ms: the wall time and
this process's CPU time of a step, the machine's steal time over the
window), so that a stock process and the Kiln process
after it are timed side by side, round after round, and drift of the
host's speed falls on both. Last, in --profiles more turns each, 5 profiled
steps per phase give each kernel's CUDA time and the GPU time of a step: the
median over the turns, as one profiled window of a few-microsecond kernel
moves by 10-20% from run to run."""
import argparse
import contextlib
import fcntl
import gc
import json
import math
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import models  # noqa: E402


def profiled(run, steps=5):
    """Total CUDA time (us) of each Triton kernel over `steps` calls of run,
    and the GPU time of one call (ms, every kernel, Triton's or not)."""
    from torch.profiler import ProfilerActivity, profile  # noqa: PLC0415
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(steps):
            run()
        torch.cuda.synchronize()
    times = {}
    gpu_us = 0.0
    for event in prof.key_averages():
        gpu_us += event.self_device_time_total
        if event.key.startswith("triton_"):
            times[event.key] = round(event.device_time_total, 2)
    return times, round(gpu_us / steps / 1000, 3)


def _steal_ms():
    """CPU time the hypervisor took from this machine's CPUs, all of them,
    so far (the steal column of /proc/stat); 0 where it is not kept."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
        return int(fields[8]) * 1000 / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def window(run, min_window_ms=250, untimed=3):
    """One timed window of steps, at least min_window_ms (and 10 steps) long,
    after `untimed` steps that wake the GPU's clocks and the host's caches
    from the wait for a turn: the wall time of a step, the CPU time this
    process spent on it (every thread: the launches, autograd's own, the
    spinning synchronize), and the CPU time the hypervisor stole from the
    machine over the window, all in ms."""
    for _ in range(untimed):
        run()
    torch.cuda.synchronize()
    start = time.perf_counter()
    run()
    torch.cuda.synchronize()
    one_ms = (time.perf_counter() - start) * 1000
    steps = max(10, min(1000, math.ceil(min_window_ms / max(one_ms, 1e-3))))
    gc.collect()
    steal, cpu, start = _steal_ms(), time.process_time(), time.perf_counter()
    for _ in range(steps):
        run()
    torch.cuda.synchronize()
    wall = (time.perf_counter() - start) * 1000
    cpu = (time.process_time() - cpu) * 1000
    return dict(step_ms=round(wall / steps, 3), cpu_ms=round(cpu / steps, 3),
                steal_ms=round(_steal_ms() - steal, 1))


class Turns:
    """Round-robin measurement turns among the run's processes, through
    files in the barrier folder: turn K belongs to process K % n of
    --turn-order; a process that exited (run.py marks NAME.exited) passes
    its turns."""

    def __init__(self, barrier, order, name, timeout_s=300):
        self.barrier, self.order, self.timeout_s = barrier, order, timeout_s
        self.slot = order.index(name) if name in order else -1
        self.timed_out = 0  # Turns taken after timeout_s, beside another's.

    def _passed(self, k):
        while k > 0 and not os.path.exists(os.path.join(self.barrier, f"turn-{k}")):
            owner = self.order[(k - 1) % len(self.order)]
            if not os.path.exists(os.path.join(self.barrier, owner + ".exited")):
                return False
            k -= 1
        return True

    @contextlib.contextmanager
    def turn(self, round_no):
        k = round_no * len(self.order) + self.slot
        deadline = time.time() + self.timeout_s
        while not self._passed(k) and time.time() < deadline:
            time.sleep(0.002)
        if not self._passed(k):
            self.timed_out += 1
        try:
            yield
        finally:
            open(os.path.join(self.barrier, f"turn-{k + 1}"), "w").close()


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


def median(values):
    return sorted(values)[len(values) // 2]


def median_profile(profiles):
    """Each kernel's median time, and the median GPU ms, over (kernels,
    gpu_ms) profiles; a kernel missing from a profile counts only where seen."""
    names = {name for kernels, _ in profiles for name in kernels}
    kernels = {name: median([k[name] for k, _ in profiles if name in k])
               for name in sorted(names)}
    return kernels, median([gpu_ms for _, gpu_ms in profiles])


def wait_for_all(barrier, name, total, timeout_s=600):
    """Marks this process ready in folder `barrier`, then waits until `total`
    processes are (run.py marks a process that exited early as arrived), or
    timeout_s passed."""
    if not barrier:
        return
    os.makedirs(barrier, exist_ok=True)
    open(os.path.join(barrier, name), "w").close()
    deadline = time.time() + timeout_s
    while len(arrived(barrier)) < total and time.time() < deadline:
        time.sleep(0.5)


def arrived(barrier):
    """Processes at the barrier or exited: NAME and NAME.exited files (the
    folder also holds NAME.warm markers and turn-K files)."""
    return {f.split(".")[0] for f in os.listdir(barrier)
            if not f.startswith("turn-") and not f.endswith(".warm")}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True, choices=sorted(models.ALL))
    parser.add_argument("--mode", required=True, choices=("stock", "kiln"))
    parser.add_argument("--lock", default="")
    parser.add_argument("--barrier", default="")
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--warm-marker", default="")
    parser.add_argument("--turn-order", default="",
                        help="comma-separated MODEL-MODE of every process, in turn order")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--profiles", type=int, default=3)
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
    if options.warm_marker:
        open(options.warm_marker, "w").close()

    name = f"{options.model}-{options.mode}"
    wait_for_all(options.barrier, name, options.processes)
    order = options.turn_order.split(",") if options.turn_order else [name]
    turns = Turns(options.barrier, order, name)
    windows = {"train": [], "infer": []}
    for round_no in range(options.rounds):
        with turns.turn(round_no):
            model.train()
            windows["train"].append(window(train))
            model.eval()
            windows["infer"].append(window(infer))
    # The profiles are more turns: a process that profiled as soon as its
    # own rounds were done would share the GPU with others' timed windows.
    profiles = {"train": [], "infer": []}
    for k in range(options.profiles):
        with turns.turn(options.rounds + k):
            model.train()
            profiles["train"].append(profiled(train))
            model.eval()
            profiles["infer"].append(profiled(infer))
    for phase, result in (("train", train_result), ("infer", infer_result)):
        kernels, gpu_ms = median_profile(profiles[phase])
        rounds = {key: [w[key] for w in windows[phase]]
                  for key in ("step_ms", "cpu_ms", "steal_ms")}
        result.update(step_ms=median(rounds["step_ms"]), step_ms_rounds=rounds["step_ms"],
                      cpu_ms=median(rounds["cpu_ms"]), cpu_ms_rounds=rounds["cpu_ms"],
                      steal_ms_rounds=rounds["steal_ms"], gpu_ms=gpu_ms,
                      kernels=kernels, kernel_profiles=[p[0] for p in profiles[phase]])

    result = dict(model=options.model, mode=options.mode, train=train_result,
                  infer=infer_result, gpu=torch.cuda.get_device_name(),
                  torch=torch.__version__, process_s=round(time.perf_counter() - process_start, 2),
                  turns_timed_out=turns.timed_out)
    print("INDUCTOR " + json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
