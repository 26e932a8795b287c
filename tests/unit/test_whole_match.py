"""Every name, id and key checked against a pattern is checked whole. Python's `$` also matches just
before a final newline, so `re.match(r"^[a-z]+$", "harbour\\n")` passes: a collection named "harbour\\n"
would list as "harbour" beside the real one, as a folder, an S3 prefix and a table key holding a newline.
(pydantic's `Field(pattern=…)` runs on Rust's regex, whose `$` is the end of the text: not at issue.)"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import TypeAdapter, ValidationError

from claimcourt.access import authenticate, issue_key, valid_tenant
from claimcourt.api.benchmarks import _known_id
from claimcourt.api.console import asset
from claimcourt.api.corpora import is_upload
from claimcourt.errors import InvalidRequestError, NotFoundError, UnauthorizedError
from claimcourt.evidence.collections import check_name
from claimcourt.models import CorpusName, corpus_name_problem
from claimcourt.preferences import Preferences
from claimcourt.rejudge import parse_judge
from claimcourt.settings import Settings
from claimcourt.store.base import decode_cursor, encode_cursor
from claimcourt.store.sqlite import SqliteStore

LISTING_KEY = "2026-01-02T03:04:05.000006Z#run_abc"


def test_a_name_or_tenant_with_a_trailing_newline_is_refused() -> None:
    assert corpus_name_problem("harbour") is None
    assert corpus_name_problem("harbour\n") is not None
    with pytest.raises(ValidationError, match="is not a collection name"):
        TypeAdapter(CorpusName).validate_python("harbour\n")
    with pytest.raises(InvalidRequestError, match="is not a collection name"):
        check_name("harbour\n")
    assert valid_tenant("acme") and not valid_tenant("acme\n")


@pytest.mark.parametrize(
    ("accepts", "whole", "with_newline"),
    [
        (lambda v: asset(v) is not None, "index.html", "index.html\n"),
        (lambda v: is_upload("PUT", v), "/corpora/harbour/documents", "/corpora/harbour/documents\n"),
    ],
    ids=["console file", "upload route"],
)
def test_a_path_with_a_trailing_newline_is_not_taken(
    accepts: Callable[[str], bool], whole: str, with_newline: str
) -> None:
    assert accepts(whole) and not accepts(with_newline)


@pytest.mark.parametrize(
    ("check", "whole", "with_newline", "refused"),
    [
        (_known_id, "b_0123456789ab", "b_0123456789ab\n", NotFoundError),
        (lambda v: decode_cursor(encode_cursor(v)), LISTING_KEY, LISTING_KEY + "\n", InvalidRequestError),
        (lambda v: parse_judge(v, Settings()), "offline", "offline\n", InvalidRequestError),
    ],
    ids=["benchmark id", "cursor", "judge"],
)
def test_an_id_with_a_trailing_newline_is_refused(
    clean_env: None, check: Callable[[str], object], whole: str, with_newline: str, refused: type[Exception]
) -> None:
    check(whole)
    with pytest.raises(refused):
        check(with_newline)


def test_an_api_key_or_a_provider_key_with_a_trailing_newline_is_refused(
    clean_env: None, store: SqliteStore, tmp_path: Path
) -> None:
    key, record = issue_key(store, "acme")
    assert authenticate(store, key) == record
    with pytest.raises(UnauthorizedError):
        authenticate(store, key + "\n")
    preferences = Preferences(Settings(data_dir=tmp_path), store, tmp_path)
    with pytest.raises(InvalidRequestError, match="not a openai API key"):
        preferences.put_key("openai", "sk-" + "a" * 30 + "\n")
