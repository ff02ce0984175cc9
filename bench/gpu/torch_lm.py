"""A small GPT-style language model trained on random tokens, timed and profiled per precision.

Writes, into the folder given:
  timings.json          median step time per configuration (CUDA events, after warm-up)
  lm_<config>.json      a PyTorch profiler (Kineto) trace of 3 steps, for the profiled configurations
Mode "record" runs a few steps only, unprofiled, for `ampscope record` to inject into.
"""
import json
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

from cuda_timing import event_times_ms

D_MODEL, HEADS, LAYERS, SEQ, BATCH = 1024, 16, 4, 512, 8


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q, k, v = (t.view(b, s, self.heads, d // self.heads).transpose(1, 2) for t in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, s, d))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class LM(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.embed = nn.Embedding(vocab, D_MODEL)
        self.pos = nn.Parameter(torch.zeros(SEQ, D_MODEL))
        self.blocks = nn.ModuleList(Block(D_MODEL, HEADS) for _ in range(LAYERS))
        self.ln = nn.LayerNorm(D_MODEL)
        self.head = nn.Linear(D_MODEL, vocab)

    def forward(self, tokens):
        x = self.embed(tokens) + self.pos
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln(x))


def make_step(vocab, precision):
    torch.manual_seed(0)
    model = LM(vocab).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(precision)
    scaler = torch.amp.GradScaler("cuda") if precision == "fp16" else None
    tokens = torch.randint(0, vocab, (BATCH, SEQ + 1), device="cuda")

    def step():
        with torch.autocast("cuda", dtype=dtype, enabled=dtype is not None):
            logits = model(tokens[:, :-1])
            loss = F.cross_entropy(logits.reshape(-1, vocab), tokens[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        if scaler:
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        else:
            loss.backward()
            opt.step()
        return loss

    return step


def time_config(vocab, precision, tf32, warmup=5, steps=20):
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    times, loss = event_times_ms(make_step(vocab, precision), warmup, steps)
    return {"vocab": vocab, "precision": precision, "tf32": tf32, "steps": steps,
            "median_ms": times[len(times) // 2], "min_ms": times[0], "max_ms": times[-1],
            "loss": float(loss)}


def profile_config(vocab, precision, tf32, path):
    from torch.profiler import ProfilerActivity, profile, schedule
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    step = make_step(vocab, precision)
    for _ in range(3):
        step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                 schedule=schedule(wait=1, warmup=1, active=3),
                 on_trace_ready=lambda p: p.export_chrome_trace(path)) as prof:
        for _ in range(5):
            step()
            prof.step()
    torch.cuda.synchronize()


def main():
    mode, out = sys.argv[1], sys.argv[2]
    if mode == "record":
        step = make_step(50257, "bf16")
        for _ in range(6):
            step()
        torch.cuda.synchronize()
        return
    info = {"torch": torch.__version__, "device": torch.cuda.get_device_name(),
            "cudnn": torch.backends.cudnn.version(), "model": {
                "d_model": D_MODEL, "heads": HEADS, "layers": LAYERS, "seq": SEQ, "batch": BATCH}}
    results = []
    for vocab, precision, tf32 in [(50257, "fp32", False), (50257, "fp32", True), (50257, "bf16", False),
                                   (50304, "bf16", False), (50257, "fp16", False), (50304, "fp32", False)]:
        t0 = time.time()
        results.append(time_config(vocab, precision, tf32))
        print(json.dumps(results[-1]), f"({time.time() - t0:.1f} s)", flush=True)
    info["timings"] = results
    with open(os.path.join(out, "timings.json"), "w") as f:
        json.dump(info, f, indent=1)
    for vocab, precision, tf32, name in [(50257, "fp32", False, "fp32"), (50257, "bf16", False, "bf16"),
                                         (50257, "fp16", False, "fp16")]:
        t0 = time.time()
        profile_config(vocab, precision, tf32, os.path.join(out, f"lm_{name}.json"))
        print("profiled", name, f"({time.time() - t0:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
