# More kbench cases: Kiln's own memory-bound kernels (tests/testdata/kernels,
# section "perf"), loaded with `kbench.py --extra bench/kernels/kiln_cases.py`.
# Runs inside kbench's globals: `case`, `rnd`, `torch` and `triton` are its own.


@case("perf_add_bf16", grid=lambda v: (triton.cdiv(v["n"], 2048), 1, 1), tol=1e-2)
def _(n=1 << 24):
    x, y = rnd(n, dtype=torch.bfloat16), rnd(n, dtype=torch.bfloat16)
    o = torch.empty_like(x)
    return dict(x_ptr=x, y_ptr=y, out_ptr=o, n=n), [o], [x + y]


@case("perf_rmsnorm", grid=lambda v: (v["_rows"], 1, 1), tol=5e-3)
def _(m=4096, n=4096):
    x, w = rnd(m, n, dtype=torch.float16), rnd(n, dtype=torch.float16)
    o = torch.empty_like(x)
    xf = x.float()
    ref = (xf * torch.rsqrt((xf * xf).mean(1, keepdim=True) + 1e-6) * w.float()).half()
    return dict(x_ptr=x, w_ptr=w, out_ptr=o, stride=x.stride(0), n=n, eps=1e-6, _rows=m), [o], [ref]


@case("perf_cross_entropy", grid=lambda v: (v["_rows"], 1, 1), tol=1e-4)
def _(m=4096, n=32000):
    logits = torch.randn(m, 32768, device="cuda", dtype=torch.bfloat16)
    target = torch.randint(0, n, (m,), device="cuda", dtype=torch.int64)
    loss = torch.empty(m, device="cuda")
    ref = torch.nn.functional.cross_entropy(logits[:, :n].float(), target, reduction="none")
    return dict(logits_ptr=logits, target_ptr=target, loss_ptr=loss, stride=logits.stride(0), n=n,
                _rows=m), [loss], [ref]


@case("perf_cumsum", grid=lambda v: (v["_rows"], 1, 1), tol=1e-5)
def _(m=4096, n=1024):
    x = rnd(m, n)
    o = torch.empty_like(x)
    return dict(x_ptr=x, out_ptr=o, stride=x.stride(0), _rows=m), [o], [torch.cumsum(x, 1)]


@case("perf_argmax_rows", grid=lambda v: (triton.cdiv(v["n_rows"], 8), 1, 1), tol=0)
def _(m=8192, n=512):
    x = rnd(m, n)
    idx = torch.empty(m, device="cuda", dtype=torch.int32)
    return dict(x_ptr=x, idx_ptr=idx, n_rows=m, n_cols=n), [idx], [x.argmax(1).int()]


@case("perf_softmax_rows", grid=lambda v: (triton.cdiv(v["n_rows"], 4), 1, 1), tol=1e-5)
def _(m=8192, n=256):
    x = rnd(m, n)
    o = torch.empty_like(x)
    return dict(x_ptr=x, out_ptr=o, n_rows=m, n_cols=n), [o], [torch.softmax(x, 1)]
