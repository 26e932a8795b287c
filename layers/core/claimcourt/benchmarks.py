"""A benchmark record: one `claimcourt bench` scorecard as the store keeps it and the API serves it.

Benchmarks are the deployment's, not a tenant's: they measure the engine and its configured models,
not anyone's claims, so every caller with a key reads the same list (runs stay tenant-scoped).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from pydantic import Field

from claimcourt.models import Strict

# A plot's name: what bench/report.py writes (`<bench>-<kind>.png`); nothing else is ever served.
PLOT_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,80}\.png$")
BENCHMARK_ID = re.compile(r"^b_[0-9a-f]{12}$")


class BenchmarkValue(Strict):
    """One metric of one system."""

    system: str = Field(description="debate, judge (single-LLM judge) or rag (naive RAG + LLM).")
    metric: str
    value: float | None = Field(description="null: the metric cannot be measured on these items.")
    n: int = Field(ge=0, description="The items (claims × runs) the system was asked.")


class BenchmarkCost(Strict):
    system: str
    n: int = Field(ge=0)
    spent_usd: float = Field(ge=0, description="What the providers billed for the system's items.")
    metered_usd: float = Field(
        ge=0,
        description="The offline reasoner's calls priced as if billed at a model's prices: nothing spent.",
    )


class BenchmarkTable(Strict):
    title: str
    header: list[str]
    rows: list[list[str]]


class BenchmarkSection(Strict):
    """One bench of the scorecard: every metric for every system, debate beside the baselines."""

    bench: str = Field(description="calibration, averitec, climate-fever or probes.")
    title: str
    systems: list[str]
    values: list[BenchmarkValue]
    costs: list[BenchmarkCost]
    notes: list[str] = Field(default_factory=list)
    tables: list[BenchmarkTable] = Field(default_factory=list)
    plots: list[str] = Field(
        default_factory=list, description="PNG plots: GET /benchmarks/{id}/plots/{name}."
    )


class BenchmarkRecord(Strict):
    benchmark_id: str = Field(pattern=BENCHMARK_ID.pattern)
    recorded_at: datetime
    model: str = Field(
        description="The reasoner: provider:model per role, or the offline reasoner (no model)."
    )
    offline: bool = Field(description="True: the offline reasoner's figures, not a model's.")
    options: dict[str, Any] = Field(
        description="What the bench was asked (benches, baselines, limit, sample, …)."
    )
    wall_s: float
    directory: str = Field(description="The bench run's directory on the machine that ran it.")
    sections: list[BenchmarkSection]

    @property
    def plot_names(self) -> set[str]:
        return {name for section in self.sections for name in section.plots}
