"""A run's ClaimReview (claimcourt/claimreview.py): every document it writes holds to the published
schema (docs/schemas/claimreview.schema.json: Google's required and recommended properties), the
rating reads as the verdict in words on the score's own scale, and a run without a rating gets a
409's error naming why, never half a document."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from pydantic import ValidationError

from claimcourt.claimreview import Publisher, claim_review, console_url, rating_words, review_url
from claimcourt.errors import ConflictError
from claimcourt.models import (
    Interval,
    MotionRequest,
    Result,
    RunRecord,
    RunRequest,
    RunStatus,
    SourceRef,
    StructuralAnalysis,
    Usage,
    Verdict,
)
from claimcourt.settings import Settings

SCHEMA = json.loads(
    (Path(__file__).resolve().parents[2] / "docs" / "schemas" / "claimreview.schema.json").read_text()
)
FINISHED = datetime(2026, 11, 20, 9, 30, tzinfo=UTC)
URL = "https://checks.example.org/reviews/run_1"
PUBLISHER = Publisher("Example Checks", "https://checks.example.org")


def _result(score: int = 82, verdict: Verdict = Verdict.SUPPORTED, **changes: Any) -> Result:
    return Result(
        run_id="run_1",
        claim="Arctic sea ice has declined since 1979",
        mode="spectral",
        overall_score=score,
        interval=Interval(low=max(0, score - 11), high=min(100, score + 11)),
        overall_verdict=verdict,
        interval_method="judge",
        rounds=2,
        sub_claims=[],
        what_would_change=[],
        structural_analysis=StructuralAnalysis(),
        sources=[],
        reasoner="anthropic",
        usage=Usage(),
    ).model_copy(update=changes)


def _record(
    result: Result | None = None, status: RunStatus = RunStatus.SUCCEEDED, **request: Any
) -> RunRecord:
    return RunRecord(
        run_id="run_1",
        claim_id="c_1",
        status=status,
        request=RunRequest.model_validate({"claim": "Arctic sea ice has declined since 1979", **request}),
        created_at=FINISHED,
        finished_at=FINISHED if status.terminal else None,
        result=result if result is not None else (_result() if status is RunStatus.SUCCEEDED else None),
    )


def _valid(review: dict[str, Any]) -> dict[str, Any]:
    jsonschema_rs.validate(SCHEMA, review)
    rating = review["reviewRating"]
    assert rating["worstRating"] <= rating["ratingValue"] <= rating["bestRating"]
    return review


ORIGIN = {
    "author": "  Senator   Example ",
    "author_type": "Person",
    "appearances": ["https://news.example.com/interview", "https://video.example.com/clip?id=7"],
    "date_made": "2025-03-04",
}


def test_a_succeeded_run_is_published_with_the_claim_its_origin_rating_author_date_and_page() -> None:
    review = _valid(claim_review(_record(claim_origin=ORIGIN), url=URL, publisher=PUBLISHER))
    assert review["@context"] == "https://schema.org" and review["@type"] == "ClaimReview"
    assert review["url"] == URL and review["datePublished"] == "2026-11-20"
    assert review["claimReviewed"] == "Arctic sea ice has declined since 1979"
    assert review["author"] == {"@type": "Organization", "name": "Example Checks", "url": PUBLISHER.url}
    # The origin as the request gave it: the first appearance first, the others after it
    assert review["itemReviewed"] == {
        "@type": "Claim",
        "author": {"@type": "Person", "name": "Senator Example"},
        "datePublished": "2025-03-04",
        "firstAppearance": {"@type": "CreativeWork", "url": "https://news.example.com/interview"},
        "appearance": [{"@type": "CreativeWork", "url": "https://video.example.com/clip?id=7"}],
    }
    rating = review["reviewRating"]
    assert (rating["ratingValue"], rating["bestRating"], rating["worstRating"]) == (82, 100, 0)
    assert rating["alternateName"] == "Likely true"
    assert "82 of 100 is the probability" in rating["ratingExplanation"]
    assert "temporalCoverage" not in review


def test_without_an_origin_or_a_publisher_the_review_still_holds_to_the_schema() -> None:
    review = _valid(claim_review(_record(), url=URL, publisher=None))
    assert review["itemReviewed"] == {"@type": "Claim"} and "author" not in review


def test_a_backtest_says_the_date_it_speaks_for_and_an_offline_run_says_no_model_made_it() -> None:
    result = _result(
        as_of_date=date(2005, 6, 1),
        reasoner="offline",
        decisive_source=SourceRef(
            evidence_id="E1",
            title="Arctic sea ice decline",
            source_url="https://en.wikipedia.org/x",
            tier="T2",
        ),
    )
    review = _valid(claim_review(_record(result, as_of_date="2005-06-01"), url=URL, publisher=PUBLISHER))
    assert review["temporalCoverage"] == "../2005-06-01"
    explanation = review["reviewRating"]["ratingExplanation"]
    assert "as the claim stood on 2005-06-01" in explanation
    assert "without a language model" in explanation
    assert "Decisive source: Arctic sea ice decline (https://en.wikipedia.org/x)" in explanation


@pytest.mark.parametrize(
    ("verdict", "score", "words"),
    [
        (Verdict.SUPPORTED, 95, "Very likely true"),
        (Verdict.SUPPORTED, 90, "Very likely true"),
        (Verdict.SUPPORTED, 89, "Likely true"),
        (Verdict.SUPPORTED, 60, "Likely true"),
        (Verdict.REFUTED, 40, "Likely false"),
        (Verdict.REFUTED, 11, "Likely false"),
        (Verdict.REFUTED, 10, "Very likely false"),
        (Verdict.CONFLICTING, 50, "Conflicting evidence"),
        (Verdict.NOT_ENOUGH_EVIDENCE, 72, "Not enough evidence"),
    ],
)
def test_the_rating_is_the_verdict_in_words_on_the_scores_0_to_100_scale(
    verdict: Verdict, score: int, words: str
) -> None:
    assert rating_words(verdict, score) == words
    review = _valid(claim_review(_record(_result(score, verdict)), url=URL, publisher=PUBLISHER))
    assert (review["reviewRating"]["alternateName"], review["reviewRating"]["ratingValue"]) == (words, score)


@pytest.mark.parametrize(
    ("record", "code", "why"),
    [
        (_record(status=RunStatus.RUNNING), "run_running", "still running"),
        (
            _record(status=RunStatus.STOPPED).model_copy(
                update={"warnings": ["The claim refers to itself."]}
            ),
            "run_stopped",
            "stopped by the suitability check, so it has no rating: The claim refers to itself.",
        ),
        (
            _record(status=RunStatus.FAILED).model_copy(update={"error": "BudgetExceededError: spent"}),
            "run_failed",
            "failed, so it has no rating: BudgetExceededError: spent",
        ),
        (
            _record().model_copy(update={"motion": MotionRequest(motion="Cities should ban cars")}),
            "motion_debate",
            "a motion debate",
        ),
    ],
    ids=["running", "stopped", "failed", "motion"],
)
def test_a_run_without_a_rating_is_refused_naming_why(record: RunRecord, code: str, why: str) -> None:
    with pytest.raises(ConflictError) as refused:
        claim_review(record, url=URL, publisher=PUBLISHER)
    assert refused.value.code == code and why in str(refused.value)


def _published() -> dict[str, Any]:
    return claim_review(_record(claim_origin=ORIGIN), url=URL, publisher=PUBLISHER)


@pytest.mark.parametrize(
    "spoil",
    [
        lambda r: r.pop("url"),
        lambda r: r.pop("claimReviewed"),
        lambda r: r.pop("reviewRating"),
        lambda r: r["reviewRating"].pop("alternateName"),
        lambda r: r["reviewRating"].pop("bestRating"),  # a 0–100 value read on schema.org's 1–5 default
        lambda r: r.update(url="/runs/run_1"),
        lambda r: r.update(reviewRatings=r["reviewRating"]),  # not a schema.org property
        lambda r: r["itemReviewed"].update({"@type": "CreativeWork"}),
        lambda r: r["itemReviewed"]["author"].pop("name"),
        lambda r: r.update({"@context": "http://example.org/vocab"}),
    ],
    ids=[
        "no-url", "no-claim", "no-rating", "no-words", "no-scale", "relative-url", "invented-property",
        "not-a-claim", "nameless-author", "other-vocabulary",
    ],
)  # fmt: skip
def test_the_schema_refuses_a_review_that_breaks_the_guidelines(spoil: Any) -> None:
    review = _valid(_published())
    spoil(review)
    with pytest.raises(jsonschema_rs.ValidationError):
        jsonschema_rs.validate(SCHEMA, review)


def test_a_reviews_page_comes_from_the_template_or_the_console() -> None:
    assert (
        review_url("https://checks.example.org/{run_id}.html", "run_9")
        == "https://checks.example.org/run_9.html"
    )
    assert console_url("https://api.example.org/", "run_9") == "https://api.example.org/#/runs/run_9"


@pytest.mark.parametrize(
    ("origin", "field"),
    [
        ({}, "claim_origin"),
        ({"author": " \t "}, "claim_origin.author"),
        ({"author": "A\x07B"}, "claim_origin.author"),
        ({"appearances": ["ftp://example.org/x"]}, "claim_origin.appearances.0"),
        ({"appearances": ["https://exa mple.org"]}, "claim_origin.appearances.0"),
        ({"appearances": ["example.org/post"]}, "claim_origin.appearances.0"),
        ({"appearances": ["https://example.org"] * 11}, "claim_origin.appearances"),
        ({"date_made": "2999-01-01"}, "claim_origin.date_made"),
        ({"author": "A", "author_type": "Robot"}, "claim_origin.author_type"),
        ({"author": "A", "said": "it"}, "claim_origin.said"),
    ],
)
def test_a_bad_claim_origin_is_refused_naming_its_field(origin: dict[str, Any], field: str) -> None:
    with pytest.raises(ValidationError) as refused:
        RunRequest.model_validate({"claim": "Sea levels are rising", "claim_origin": origin})
    assert ".".join(str(p) for p in refused.value.errors()[0]["loc"]) == field


def test_the_review_page_setting_must_give_each_run_its_own_page(clean_env: None) -> None:
    with pytest.raises(ValidationError, match=r"\{run_id\}"):
        Settings(claimreview_url="https://checks.example.org/latest")
    with pytest.raises(ValidationError, match="http"):
        Settings(claimreview_url="checks.example.org/{run_id}")
    with pytest.raises(ValidationError, match="http"):
        Settings(claimreview_author_url="mailto:desk@example.org")
    assert Settings(claimreview_url="https://checks.example.org/{run_id}").claimreview_url
