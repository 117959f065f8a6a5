#!/usr/bin/env python3
"""Reads llama.cpp's compute buffer for encoder-only models (BERT, XLM-RoBERTa, nomic-bert) off its
own allocator, the rows of tests/data/llama_encoder_buffers.tsv that tests/encoders.rs holds the
estimator's formula to.

How: a GGUF of zeros in each shape (the buffer depends on the graph's shapes, not the values), written
with llama.cpp's gguf-py, run by llama.cpp's `llama-embedding` on the CPU backend with -c = -b = -ub = T
(one micro-batch of T tokens, as a non-causal model needs), flash attention on and off, 2 and 8
sequences (-np), mean and CLS pooling; the row is the `CPU compute buffer size` the scheduler reserves.

Run (llama.cpp at 0c1e57098bba43ac29e6e3b677cdceebdd22334f, the copy vendored in llama-cpp-python
0.3.36, https://pypi.org/project/llama-cpp-python/0.3.36/; its log prints MiB with two decimals, so
the one line of src/llama-context.cpp that prints `compute buffer size` was changed to print
`backend_buf_exp_size[i]` in bytes as well):
    cmake -B build -DGGML_NATIVE=ON && cmake --build build --target llama-embedding
    LLAMA=path/to/llama.cpp python3 crates/estimator/tests/gen/encoder_buffers.py > rows.tsv
    LLAMA=path/to/llama.cpp python3 crates/estimator/tests/gen/encoder_buffers.py --rank
    LLAMA=path/to/llama.cpp python3 crates/estimator/tests/gen/encoder_buffers.py --decoder
The second reads BERT's shapes with a reranker's classifier and rank pooling (the `rank` rows: a
RoBERTa classifier's dense layer and output row; `rank-out`: the output row alone, as BERT's).
The third reads an embedding server's decoder (Qwen3-Embedding-0.6B's shapes, two layers, last-token
pooling, `--attention causal` so that -ub stays below -b) at micro-batches of 512 to 4,096: the rows
of `an_embedding_servers_outputs_grow_with_its_micro_batch` in tests/embeddings.rs.
"""
import itertools, os, re, subprocess, sys, tempfile

LLAMA = os.environ.get("LLAMA", "llama.cpp")
sys.path.insert(0, os.path.join(LLAMA, "gguf-py"))
import gguf  # noqa: E402
import numpy as np  # noqa: E402

def write(path, arch, n_embd, n_layer, n_head, n_ff, n_vocab, n_ctx, n_types, pooling):
    w = gguf.GGUFWriter(path, arch)
    w.add_context_length(n_ctx)
    w.add_embedding_length(n_embd)
    w.add_feed_forward_length(n_ff)
    w.add_block_count(n_layer)
    w.add_head_count(n_head)
    w.add_layer_norm_eps(1e-5)
    w.add_causal_attention(False)
    w.add_pooling_type(gguf.PoolingType(min(pooling, 4)))
    if arch == "nomic-bert":
        w.add_rope_freq_base(1000.0)
    w.add_tokenizer_model("bert")
    toks = ["[PAD]"] + [f"[unused{i}]" for i in range(99)] + ["[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    toks += [f"t{i}" for i in range(n_vocab - len(toks))]
    w.add_token_list(toks)
    w.add_token_types([1] * n_vocab)
    w.add_token_type_count(n_types)
    w.add_bos_token_id(101); w.add_eos_token_id(102); w.add_unk_token_id(100); w.add_pad_token_id(0)
    w.add_mask_token_id(103)

    def t(name, *shape, f32=False):  # shape in ggml order; numpy's is reversed
        dt = np.float32 if (f32 or len(shape) == 1) else np.float16
        w.add_tensor(name, np.zeros(tuple(reversed(shape)), dtype=dt))

    t("token_embd.weight", n_embd, n_vocab)
    t("token_types.weight", n_embd, n_types, f32=True)
    if arch == "bert":
        t("position_embd.weight", n_embd, n_ctx)
    t("token_embd_norm.weight", n_embd); t("token_embd_norm.bias", n_embd)
    for i in range(n_layer):
        p = f"blk.{i}."
        if arch == "bert":  # src/models/bert.cpp: q, k, v with biases, a GELU FFN with biases
            for q in "qkv":
                t(p + f"attn_{q}.weight", n_embd, n_embd); t(p + f"attn_{q}.bias", n_embd)
            t(p + "attn_output.weight", n_embd, n_embd); t(p + "attn_output.bias", n_embd)
            t(p + "ffn_up.weight", n_embd, n_ff); t(p + "ffn_up.bias", n_ff)
            t(p + "ffn_down.weight", n_ff, n_embd); t(p + "ffn_down.bias", n_embd)
        else:  # src/models/nomic-bert.cpp: fused qkv, a SwiGLU FFN, no biases
            t(p + "attn_qkv.weight", n_embd, 3 * n_embd)
            t(p + "attn_output.weight", n_embd, n_embd)
            t(p + "ffn_up.weight", n_embd, n_ff); t(p + "ffn_gate.weight", n_embd, n_ff)
            t(p + "ffn_down.weight", n_ff, n_embd)
        t(p + "attn_output_norm.weight", n_embd); t(p + "attn_output_norm.bias", n_embd)
        t(p + "layer_output_norm.weight", n_embd); t(p + "layer_output_norm.bias", n_embd)
    if pooling in (4, 5):  # rank pooling into a one-label classifier: RoBERTa's dense layer and
        # output row (cls, cls.output: 4), or BERT's output row alone (the converter drops the pooler: 5)
        if pooling == 4:
            t("cls.weight", n_embd, n_embd); t("cls.bias", n_embd)
        t("cls.output.weight", n_embd, 1, f32=True); t("cls.output.bias", 1)
    w.write_header_to_file(); w.write_kv_data_to_file(); w.write_tensors_to_file(); w.close()

def compute_buffer(path, ub, fa, n_seq):
    exe = os.path.join(LLAMA, "build", "bin", "llama-embedding")
    args = [exe, "-m", path, "-c", str(ub), "-b", str(ub), "-ub", str(ub), "-fa", fa,
            "-np", str(n_seq), "-p", "hi", "-v", "-t", "2"]
    log = subprocess.run(args, capture_output=True, text=True).stderr
    found = re.findall(r"CPU compute buffer size =\s+[\d.]+ MiB \((\d+) B\)", log)
    return int(found[-1]) if found else None

# (arch, n_embd, n_head, n_ff, layers): bge-small's shape, bge-m3's, nomic-embed-text's, and two with
# a narrow FFN (where the attention step is the peak).
SHAPES = [("bert", 384, 12, 1536, 2), ("bert", 384, 12, 1536, 4), ("bert", 1024, 16, 4096, 2),
          ("nomic-bert", 768, 12, 3072, 2), ("bert", 512, 8, 1024, 2), ("nomic-bert", 512, 8, 1024, 2)]

def write_qwen3(path, n_embd=1024, n_layer=2, n_head=16, n_kv=8, hd=128, n_ff=3072, n_vocab=151669):
    w = gguf.GGUFWriter(path, "qwen3")
    w.add_context_length(32768); w.add_embedding_length(n_embd); w.add_feed_forward_length(n_ff)
    w.add_block_count(n_layer); w.add_head_count(n_head); w.add_head_count_kv(n_kv)
    w.add_key_length(hd); w.add_value_length(hd); w.add_rope_freq_base(1e6)
    w.add_layer_norm_rms_eps(1e-6); w.add_pooling_type(gguf.PoolingType(3))
    w.add_tokenizer_model("llama")
    toks = ["<unk>", "<s>", "</s>"] + [f"t{i}" for i in range(n_vocab - 3)]
    w.add_token_list(toks); w.add_token_scores([0.0] * n_vocab); w.add_token_types([1] * n_vocab)
    w.add_bos_token_id(1); w.add_eos_token_id(2); w.add_unk_token_id(0)

    def t(name, *shape):
        dt = np.float32 if len(shape) == 1 else np.float16
        w.add_tensor(name, np.zeros(tuple(reversed(shape)), dtype=dt))

    t("token_embd.weight", n_embd, n_vocab); t("output_norm.weight", n_embd)
    for i in range(n_layer):
        p = f"blk.{i}."
        t(p + "attn_norm.weight", n_embd); t(p + "attn_q.weight", n_embd, n_head * hd)
        t(p + "attn_k.weight", n_embd, n_kv * hd); t(p + "attn_v.weight", n_embd, n_kv * hd)
        t(p + "attn_output.weight", n_head * hd, n_embd); t(p + "attn_q_norm.weight", hd)
        t(p + "attn_k_norm.weight", hd); t(p + "ffn_norm.weight", n_embd)
        t(p + "ffn_gate.weight", n_embd, n_ff); t(p + "ffn_up.weight", n_embd, n_ff)
        t(p + "ffn_down.weight", n_ff, n_embd)
    w.write_header_to_file(); w.write_kv_data_to_file(); w.write_tensors_to_file(); w.close()

if "--decoder" in sys.argv:
    exe = os.path.join(LLAMA, "build", "bin", "llama-embedding")
    print("# ctx\tn_seq\tubatch\tcompute_buffer_bytes")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "q.gguf")
        write_qwen3(path)
        for (ctx, n_seq), ub in itertools.product(((8192, 4), (16384, 2), (4096, 2)), (512, 1024, 2048, 4096)):
            args = [exe, "-m", path, "-c", str(ctx), "-np", str(n_seq), "-b", "16384", "-ub", str(ub),
                    "-fa", "on", "--attention", "causal", "-p", "hi", "-v", "-t", "2"]
            log = subprocess.run(args, capture_output=True, text=True).stderr
            found = re.findall(r"CPU compute buffer size =\s+[\d.]+ MiB \((\d+) B\)", log)
            print(f"{ctx}\t{n_seq}\t{ub}\t{found[-1] if found else None}", flush=True)
    sys.exit(0)

POOLINGS = (1, 2)
if "--rank" in sys.argv:  # a reranker's classifier on BERT's shapes (tests/encoders.rs's rank rows)
    POOLINGS = (4, 5)
    SHAPES = [s for s in SHAPES if s[0] == "bert"]

print("# arch\tn_embd\tn_head\tn_ff\tlayers\tpooling\tubatch\tflash_attn\tn_seq\tcompute_buffer_bytes")
with tempfile.TemporaryDirectory() as d:
    for (arch, e, h, ff, layers), pooling in itertools.product(SHAPES, POOLINGS):
        path = os.path.join(d, "m.gguf")
        write(path, arch, e, layers, h, ff, 1000, 8192, 2, pooling)
        for ub, fa, n_seq in itertools.product((512, 520, 1024, 4096), ("on", "off"), (2, 8)):
            b = compute_buffer(path, ub, fa, n_seq)
            pool = {1: "mean", 2: "cls", 4: "rank", 5: "rank-out"}[pooling]
            print(f"{arch}\t{e}\t{h}\t{ff}\t{layers}\t{pool}\t{ub}\t{fa}\t{n_seq}\t{b}", flush=True)
