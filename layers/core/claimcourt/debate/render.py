"""How artifacts are shown to a model: one compact, citable format for every prompt."""

from __future__ import annotations

from collections.abc import Iterable

from claimcourt.models import Evidence, Point, SubClaim


def render_evidence(evidence: Iterable[Evidence]) -> str:
    lines = []
    for e in evidence:
        dated = f", {e.published.isoformat()}" if e.published else ""
        lines.append(f"[{e.id}] ({e.tier}{dated}; {e.title}; {e.source_url}) {e.text}")
    return "\n".join(lines) or "(no evidence was found)"


def render_sub_claims(sub_claims: Iterable[SubClaim]) -> str:
    return "\n".join(f"{s.id}: {s.text}" for s in sub_claims)


def render_points(points: Iterable[Point]) -> str:
    lines = []
    for p in points:
        cites = ", ".join(p.citations) or "no citations"
        lines.append(
            f"- {p.sub_claim_id}: implied score {p.implied_score}, confidence {p.confidence:.2f} "
            f"[{cites}] {p.argument}"
        )
    return "\n".join(lines) or "(no points)"
