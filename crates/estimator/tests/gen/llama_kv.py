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
    # Llama-4-Scout: chunked attention of 8,192 tokens, sized as a sliding window (the iSWA
    # cache makes no difference between the two), one global NoPE layer in four (il % 4 == 3).
    "llama4":   (48, 8, 128, 8192, lambda il: il % 4 == 3, 48),
}

# Latent attention: (layers, latent row = kv_lora_rank + qk_rope_head_dim, indexer key row or 0).
# One K-only row per cell (src/llama-kv-cache.cpp: has_v = !is_mla); the indexer of DeepSeek's
# sparse attention is a second K-only cache of the same cells and K type.
MLA = {
    "deepseek3":  (61, 512 + 64, 0),    # DeepSeek-V3 / R1
    "deepseek32": (61, 512 + 64, 128),  # DeepSeek-V3.2
}

# Hybrid recurrent: (layers, attention layers, kv_heads, head_dim, conv kernel, k_heads, k_dim,
# v_heads, v_dim). Attention layers own a KV cache; every other layer keeps, per sequence, an
# F32 conv state (kernel-1) x (2 k_heads k_dim + v_heads v_dim) and an F32 state
# v_heads x k_dim x v_dim (src/llama-hparams.cpp n_embd_r / n_embd_s), for max(1, n_seq) sequences.
HYBRID = {
    "qwen3next": (48, [il for il in range(48) if il % 4 == 3], 2, 256, 4, 16, 128, 32, 128),
    "mamba2":    (40, [9, 19, 29, 39], 8, 64, 4, 1, 128, 48, 64),
}

def cells_of(n_ctx, n_seq, unified):
    unified = unified or n_seq == 1
    n_ctx_pad = pad(n_ctx, 256)
    streams = 1 if unified else n_seq
    cells = n_ctx_pad if unified else pad(n_ctx_pad // n_seq, 256)
    return streams, cells

def mla_bytes(arch, n_ctx, n_seq, unified, t):
    layers, latent, index = MLA[arch]
    streams, cells = cells_of(n_ctx, n_seq, unified)
    return streams * cells * layers * (ROW[t](latent) + (ROW[t](index) if index else 0))

def hybrid_bytes(arch, n_ctx, n_seq, unified, t):
    layers, attn, nkv, hd, kern, kh, kd, vh, vd = HYBRID[arch]
    streams, cells = cells_of(n_ctx, n_seq, unified)
    kv = streams * cells * len(attn) * ROW[t](nkv * hd) * 2
    per_seq = (layers - len(attn)) * 4 * ((kern - 1) * (2 * kh * kd + vh * vd) + vh * kd * vd)
    return kv + max(1, n_seq) * per_seq

def kv_bytes(arch, n_ctx, n_seq, unified, t, n_ubatch=512, n_batch=2048, swa_full=False):
    if arch in MLA:
        return mla_bytes(arch, n_ctx, n_seq, unified, t)
    if arch in HYBRID:
        return hybrid_bytes(arch, n_ctx, n_seq, unified, t)
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

CONTEXTS = {"llama4": (4096, 16384, 32768, 131072)}

if __name__ == "__main__":
    for arch in list(ARCH) + list(MLA) + list(HYBRID):
        for n_ctx in CONTEXTS.get(arch, (512, 4096, 32768)):
            for n_seq in (1, 4):
                for unified in (True, False):
                    for t in ("f16", "q8_0"):
                        b = kv_bytes(arch, n_ctx, n_seq, unified, t)
                        mode = ("unified" if unified else "split") if n_seq > 1 else ("one sequence: one stream either way" if not unified else "one sequence")
                        print(f'    row("{arch}", {n_ctx}, {n_seq}, {str(unified).lower()}, "{t}", {b}), // {b / 2**20:.2f} MiB, {mode}')
