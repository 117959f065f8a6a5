#!/usr/bin/env python3
"""Independent re-implementation of llama.cpp's KV-cache allocation rules (src/llama-kv-cache.cpp), written
apart from the Rust code, used to produce the expected bytes in tests/llama_kv.rs.
Run: python3 crates/estimator/tests/gen/llama_kv.py > /tmp/rows.txt"""

def pad(x, n):
    return -(-x // n) * n

ROW = {"f16": lambda n: 2 * n, "q8_0": lambda n: 34 * n // 32}

# name: (layers, kv_heads, head_dim, swa window or None, is_global(il), kv-owning layers)
ARCH = {
    "llama":    (16, 8, 64, None, lambda il: True, 16),          # Llama-3.2-1B
    "qwen3":    (28, 8, 128, None, lambda il: True, 28),         # Qwen3-0.6B
    "gemma3":   (26, 1, 256, 512, lambda il: il % 6 == 5, 26),   # gemma-3-1b
    "gemma3n":  (30, 2, 256, 512, lambda il: il % 5 == 4, 20),   # gemma-3n-E2B
    "qwen3moe": (48, 4, 128, None, lambda il: True, 48),         # Qwen3-30B-A3B
}

def kv_bytes(arch, n_ctx, n_seq, unified, t, n_ubatch=512, n_batch=2048, swa_full=False):
    layers, nkv, hd, win, is_global, owning = ARCH[arch]
    unified = unified or n_seq == 1
    n_ctx_pad = pad(n_ctx, 256)
    streams = 1 if unified else n_seq
    cells = n_ctx_pad if unified else pad(n_ctx_pad // n_seq, 256)
    ub = min(n_ubatch, n_ctx, n_batch)
    total = 0
    for il in range(owning):
        c = cells
        if win is not None and not is_global(il) and not swa_full:
            c = pad(min(cells, win * (n_seq if unified else 1) + ub), 256)
        total += c * (ROW[t](nkv * hd) * 2)
    return streams * total

if __name__ == "__main__":
    for arch in ARCH:
        for n_ctx in (512, 4096, 32768):
            for n_seq in (1, 4):
                for unified in (True, False):
                    for t in ("f16", "q8_0"):
                        b = kv_bytes(arch, n_ctx, n_seq, unified, t)
                        mode = ("unified" if unified else "split") if n_seq > 1 else ("one sequence: one stream either way" if not unified else "one sequence")
                        print(f'    row("{arch}", {n_ctx}, {n_seq}, {str(unified).lower()}, "{t}", {b}), // {b / 2**20:.2f} MiB, {mode}')
