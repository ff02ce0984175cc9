"""What the GPU ground-truth scripts share: timing with CUDA events, and each GEMM precision with
its operands."""
import torch

# (name, element type, TF32 on): FP32 on CUDA cores, TF32, and the two half precisions.
GEMM_PRECISIONS = [("fp32", torch.float32, False), ("tf32", torch.float32, True),
                   ("bf16", torch.bfloat16, False), ("fp16", torch.float16, False)]


def event_times_ms(fn, warmup, reps):
    """Each of `reps` calls of fn timed between two CUDA events, sorted, after `warmup` calls;
    and the last call's result."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    result = None
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        result = fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return times, result


def gemm_times(shapes, time_mm):
    """One row per (M, N, K): time_mm(a, b, c) in ms for each precision of GEMM_PRECISIONS, with
    a [M, K] and b [K, N] random and c [M, N] empty."""
    out = []
    for m, n, k in shapes:
        row = {"m": m, "n": n, "k": k}
        for name, dtype, tf32 in GEMM_PRECISIONS:
            torch.backends.cuda.matmul.allow_tf32 = tf32
            a = torch.randn(m, k, device="cuda", dtype=dtype)
            b = torch.randn(k, n, device="cuda", dtype=dtype)
            c = torch.empty(m, n, device="cuda", dtype=dtype)
            row[name + "_ms"] = time_mm(a, b, c)
        out.append(row)
        print(row, flush=True)
    torch.backends.cuda.matmul.allow_tf32 = False
    return out
