"""Ground truth beside the traces: per-GEMM FP32/TF32/BF16 times, a launch-bound small MLP timed and
profiled per precision, and longer or TF32 traces of the GPT-style model of torch_lm.py."""
import json
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
import torch_lm  # noqa: E402
from cuda_timing import event_times_ms, gemm_times  # noqa: E402


def cuda_time(fn, warmup=3, reps=20):
    times, _ = event_times_ms(fn, warmup, reps)
    return times[len(times) // 2]


def gemms():
    shapes = [(64, 64, 784), (64, 10, 100), (256, 256, 256), (512, 512, 512), (1024, 1024, 1024),
              (2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192), (4096, 1024, 4096),
              (4096, 4096, 1024), (4096, 3072, 1024), (4096, 50257, 1024), (4096, 50304, 1024),
              (4096, 1024, 50257), (4096, 1024, 50304), (50257, 1024, 4096), (8, 4096, 4096),
              (32, 4096, 4096), (128, 4096, 4096), (1000, 1000, 1000), (1024, 1024, 1000), (4095, 4095, 4095)]
    out = gemm_times(shapes, lambda a, b, c: cuda_time(lambda: torch.mm(a, b)))
    for row in out:
        row["tflops_bf16"] = 2 * row["m"] * row["n"] * row["k"] / row["bf16_ms"] / 1e9
    return out


class SmallMlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(784, 256), nn.Linear(256, 256), nn.Linear(256, 128), nn.Linear(128, 10)])

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i + 1 < len(self.layers):
                x = F.relu(x)
        return x


def small_mlp_step(precision):
    torch.manual_seed(0)
    model = SmallMlp().cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    dtype = {"bf16": torch.bfloat16}.get(precision)
    x = torch.randn(32, 784, device="cuda")
    y = torch.randint(0, 10, (32,), device="cuda")

    def step():
        with torch.autocast("cuda", dtype=dtype, enabled=dtype is not None):
            loss = F.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss.item()  # a host sync every step, as most training loops log the loss
    return step


def profile(step, path, active):
    from torch.profiler import ProfilerActivity, profile as prof_, schedule
    for _ in range(3):
        step()
    torch.cuda.synchronize()
    with prof_(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
               schedule=schedule(wait=1, warmup=1, active=active),
               on_trace_ready=lambda p: p.export_chrome_trace(path)) as p:
        for _ in range(active + 2):
            step()
            p.step()
    torch.cuda.synchronize()


def main():
    out = sys.argv[1]
    result = {"device": torch.cuda.get_device_name(), "torch": torch.__version__}
    result["gemms"] = gemms()
    result["small_mlp"] = []
    for precision in ["fp32", "bf16"]:
        step = small_mlp_step(precision)
        for _ in range(10):
            step()
        import time
        t0 = time.perf_counter()
        for _ in range(200):
            step()
        ms = (time.perf_counter() - t0) / 200 * 1e3
        result["small_mlp"].append({"precision": precision, "step_ms": ms, "batch": 32})
        print("small mlp", precision, ms, flush=True)
        profile(small_mlp_step(precision), os.path.join(out, f"small_mlp_{precision}.json"), 20)
    with open(os.path.join(out, "extra_timings.json"), "w") as f:
        json.dump(result, f, indent=1)
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    profile(torch_lm.make_step(50257, "fp32"), os.path.join(out, "lm_tf32.json"), 3)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    profile(torch_lm.make_step(50257, "fp32"), os.path.join(out, "lm_fp32_8steps.json"), 8)
    print("profiled", flush=True)


if __name__ == "__main__":
    main()
