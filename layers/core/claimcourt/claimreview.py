"""A run's ClaimReview: the schema.org JSON-LD that fact-checkers publish beside a fact check
(https://schema.org/ClaimReview), so that search engines and fact-check indexes can read the verdict.

Google's structured-data guidelines for fact checks name what a reader of it needs: `claimReviewed`,
`reviewRating` (whose `alternateName` is the rating in words) and `url` are required; `author`,
`datePublished` and `itemReviewed` (a Claim: its author, date, appearances) are recommended, and so are
the rating's `ratingValue`, `bestRating` and `worstRating`. docs/schemas/claimreview.schema.json holds
those rules, and the tests validate every export against it.

Only a run that succeeded has a rating to publish: any other run (still running, stopped by the
suitability check, failed) or a motion debate gets a ConflictError naming why, never half a document.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from claimcourt.errors import ConflictError
from claimcourt.models import ClaimOrigin, Result, RunRecord, RunStatus, Verdict
from claimcourt.settings import Settings

MEDIA_TYPE = "application/ld+json"
FILE_SUFFIX = "claimreview.jsonld"
# The score is a probability (docs/scoring.md), so the rating's scale is 0–100, 100 being true.
BEST, WORST = 100, 0
# "Very likely" from 90 % (and "very unlikely" up to 10 %), as the IPCC's calibrated language has it;
# between those and the verdict bands (60, 40) a supported claim is likely true, a refuted one likely false.
VERY_LIKELY, VERY_UNLIKELY = 90, 10


@dataclass(frozen=True)
class Publisher:
    """The organisation that publishes the reviews (CLAIMCOURT_CLAIMREVIEW_AUTHOR, _AUTHOR_URL)."""

    name: str
    url: str | None = None


def publisher_of(settings: Settings) -> Publisher | None:
    if settings.claimreview_author is None:
        return None
    return Publisher(settings.claimreview_author, settings.claimreview_author_url)


def review_url(template: str, run_id: str) -> str:
    """The page of one run's review, from a CLAIMCOURT_CLAIMREVIEW_URL template holding {run_id}."""
    return template.replace("{run_id}", quote(run_id, safe=""))


def console_url(origin: str, run_id: str) -> str:
    """The run's verdict page in the web console served at `origin` (scheme and host)."""
    return f"{origin.rstrip('/')}/#/runs/{quote(run_id, safe='')}"


def rating_words(verdict: Verdict, score: int) -> str:
    """The rating as a reader says it: the score is a probability given the evidence, not a degree of
    truth, so a supported claim is "likely true" rather than "mostly true"."""
    if verdict is Verdict.SUPPORTED:
        return "Very likely true" if score >= VERY_LIKELY else "Likely true"
    if verdict is Verdict.REFUTED:
        return "Very likely false" if score <= VERY_UNLIKELY else "Likely false"
    if verdict is Verdict.CONFLICTING:
        return "Conflicting evidence"
    return "Not enough evidence"


def unreviewable(record: RunRecord) -> ConflictError | None:
    """Why this run has no ClaimReview (None: it has one)."""
    run = record.run_id
    if record.motion is not None:
        return ConflictError(
            f"run {run} is a motion debate: its result is the crowd's vote swing, not a rating of a claim",
            "motion_debate",
        )
    if record.status is RunStatus.RUNNING:
        return ConflictError(
            f"run {run} is still running: its review can be made once it has succeeded", "run_running"
        )
    if record.status is RunStatus.STOPPED:
        why = "; ".join(record.warnings) or "the claim is not one a debate can settle"
        return ConflictError(
            f"run {run} was stopped by the suitability check, so it has no rating: {why}", "run_stopped"
        )
    if record.status is RunStatus.FAILED or record.result is None:
        return ConflictError(
            f"run {run} failed, so it has no rating: {record.error or 'no result was recorded'}", "run_failed"
        )
    return None


def _explanation(result: Result) -> str:
    low, high = result.interval.low, result.interval.high
    said = [
        f"{result.overall_score} of 100 is the probability that the claim is true given the evidence the "
        f"debate found (80 % interval {low}–{high}), not a degree of truth; verdict: "
        f"{result.overall_verdict.value.replace('-', ' ')}."
    ]
    if result.decisive_source is not None:
        said.append(f"Decisive source: {result.decisive_source.title} ({result.decisive_source.source_url}).")
    if result.as_of_date is not None:
        said.append(
            f"Judged as the claim stood on {result.as_of_date.isoformat()}: evidence from after that date "
            "was left out."
        )
    if result.reasoner == "offline":
        said.append("Made without a language model, by claimcourt's offline reasoner.")
    return " ".join(said)


def _claim(origin: ClaimOrigin | None) -> dict[str, Any]:
    """The Claim reviewed, with what the request said of its origin: the first appearance as
    firstAppearance, the others as appearance (Google's Fact Check tools read them so)."""
    claim: dict[str, Any] = {"@type": "Claim"}
    if origin is None:
        return claim
    if origin.author is not None:
        claim["author"] = {"@type": origin.author_type, "name": origin.author}
    if origin.date_made is not None:
        claim["datePublished"] = origin.date_made.isoformat()
    if origin.appearances:
        first, *others = origin.appearances
        claim["firstAppearance"] = {"@type": "CreativeWork", "url": first}
        if others:
            claim["appearance"] = [{"@type": "CreativeWork", "url": url} for url in others]
    return claim


def claim_review(record: RunRecord, *, url: str, publisher: Publisher | None) -> dict[str, Any]:
    """The run's ClaimReview as JSON-LD: the claim, its rating on the score's 0–100 scale with the
    verdict in words, the claim's origin as the request gave it, the publisher, the date, the page.
    Raises the ConflictError of `unreviewable` for a run without a rating."""
    refused = unreviewable(record)
    if refused is not None:
        raise refused
    result = record.result
    assert result is not None  # unreviewable refuses a run without one
    review: dict[str, Any] = {
        "@context": "https://schema.org",
        "@type": "ClaimReview",
        "url": url,
        "claimReviewed": result.claim,
        "datePublished": (record.finished_at or record.created_at).date().isoformat(),
    }
    if publisher is not None:
        review["author"] = {"@type": "Organization", "name": publisher.name}
        if publisher.url is not None:
            review["author"]["url"] = publisher.url
    review |= {
        "itemReviewed": _claim(record.request.claim_origin),
        "reviewRating": {
            "@type": "Rating",
            "ratingValue": result.overall_score,
            "bestRating": BEST,
            "worstRating": WORST,
            "alternateName": rating_words(result.overall_verdict, result.overall_score),
            "ratingExplanation": _explanation(result),
        },
    }
    if result.as_of_date is not None:  # a backtest speaks for the claim as it stood then (ISO 8601 interval)
        review["temporalCoverage"] = f"../{result.as_of_date.isoformat()}"
    return review


def to_json(review: dict[str, Any]) -> str:
    return json.dumps(review, indent=2, ensure_ascii=False) + "\n"
