"""GEMM kernel times without the host's launch cost: 20 torch.mm calls captured in a CUDA graph,
the graph replayed and timed with CUDA events (median of 10 replays) and divided by 20. And a data
loader that starves the GPU: a ResNet-18 on 96x96 images whose dataset decodes each sample on the
CPU, timed and profiled with 0 loader workers, timed with 6."""
import json
import os
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
from cuda_timing import event_times_ms, gemm_times  # noqa: E402


def graph_ms(fn, calls=20, replays=10):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(calls):
            fn()
    g.replay()
    torch.cuda.synchronize()
    times, _ = event_times_ms(g.replay, 0, replays)
    return times[len(times) // 2] / calls


def gemms():
    shapes = [(64, 64, 784), (64, 10, 100), (128, 128, 128), (256, 256, 256), (512, 512, 512),
              (1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096), (8, 4096, 4096), (32, 4096, 4096),
              (128, 4096, 4096), (512, 4096, 4096), (4096, 1024, 4096), (4096, 4096, 1024), (4096, 3072, 1024),
              (1000, 1000, 1000), (1024, 1024, 1000), (2048, 512, 512), (16384, 64, 1024), (64, 1024, 1024),
              (4096, 50257, 1024), (4096, 50304, 1024), (4095, 4095, 4095)]
    return gemm_times(shapes, lambda a, b, c: graph_ms(lambda: torch.mm(a, b, out=c)))


class Decoded(torch.utils.data.Dataset):
    """Random 96x96 images that cost the CPU about a millisecond each, as JPEG decoding and
    augmentation would."""
    def __len__(self):
        return 64 * 40

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        x = torch.rand(3, 128, 128, generator=g)
        for _ in range(6):
            x = torch.nn.functional.avg_pool2d(x.unsqueeze(0), 3, 1, 1).squeeze(0)
        return x[:, 16:112, 16:112].contiguous(), i % 100


def loader_run(workers, profile_path=None, steps=30):
    import torchvision
    torch.manual_seed(0)
    model = torchvision.models.resnet18(num_classes=100).cuda().to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loader = torch.utils.data.DataLoader(Decoded(), batch_size=64, num_workers=workers, pin_memory=True,
                                         persistent_workers=workers > 0, shuffle=False)

    def epoch(limit, prof=None):
        n = 0
        for x, y in loader:
            x = x.cuda(non_blocking=True).to(memory_format=torch.channels_last)
            y = y.cuda(non_blocking=True)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = F.cross_entropy(model(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            loss.item()
            if prof:
                prof.step()
            n += 1
            if n >= limit:
                break
        return n

    epoch(5)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    n = epoch(steps)
    torch.cuda.synchronize()
    ms = (time.perf_counter() - t0) / n * 1e3
    if profile_path:
        from torch.profiler import ProfilerActivity, profile, schedule
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                     schedule=schedule(wait=1, warmup=1, active=8),
                     on_trace_ready=lambda p: p.export_chrome_trace(profile_path)) as prof:
            epoch(10, prof)
    return ms


def main():
    out = sys.argv[1]
    result = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
              "gemm_note": "per call: 20 torch.mm calls in a CUDA graph, median of 10 replays / 20"}
    result["gemms"] = gemms()
    result["loader"] = []
    for workers in [0, 6]:
        ms = loader_run(workers, os.path.join(out, "resnet18_loader_w0.json") if workers == 0 else None)
        result["loader"].append({"workers": workers, "step_ms": ms, "batch": 64})
        print("loader", workers, ms, flush=True)
    with open(os.path.join(out, "graph_gemm_timings.json"), "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
