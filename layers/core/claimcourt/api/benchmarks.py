"""The HTTP API's benchmarks: the scorecards `claimcourt bench` recorded, newest first, and their plots.

Benchmarks are the deployment's, not a tenant's: any key reads them (claimcourt/benchmarks.py)."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response
from aws_lambda_powertools.event_handler.openapi.params import Query
from pydantic import BaseModel, Field

from claimcourt.benchmarks import BENCHMARK_ID, PLOT_NAME, BenchmarkRecord
from claimcourt.errors import NotFoundError
from claimcourt.wiring import current_deps

MAX_LISTED = 100


class BenchmarkLinks(BaseModel):
    self: str
    plots: dict[str, str] = Field(description="Each plot's name → where its PNG is served.")


class BenchmarkView(BenchmarkRecord):
    links: BenchmarkLinks


class BenchmarkList(BaseModel):
    benchmarks: list[BenchmarkView] = Field(description="Newest first.")


def _view(record: BenchmarkRecord) -> BenchmarkView:
    base = f"/benchmarks/{record.benchmark_id}"
    plots = {name: f"{base}/plots/{name}" for s in record.sections for name in s.plots}
    return BenchmarkView(**record.model_dump(), links=BenchmarkLinks(self=base, plots=plots))


def _known_id(benchmark_id: str) -> str:
    """An id of the shape the bench records, else the same 404 as an id never recorded."""
    if not BENCHMARK_ID.fullmatch(benchmark_id):
        raise NotFoundError(f"no benchmark {benchmark_id}")
    return benchmark_id


def register(app: APIGatewayHttpResolver) -> None:
    """Add the benchmark routes to the API's resolver."""

    @app.get("/benchmarks")
    def list_benchmarks(
        limit: Annotated[int, Query(ge=1, le=MAX_LISTED, description="How many, newest first.")] = 20,
    ) -> BenchmarkList:
        """The scorecards `claimcourt bench` recorded (the deployment's: the same for every key)."""
        return BenchmarkList(benchmarks=[_view(r) for r in current_deps().store.list_benchmarks(limit)])

    @app.get("/benchmarks/<benchmark_id>")
    def get_benchmark(benchmark_id: str) -> BenchmarkView:
        """One scorecard: every metric for every system with its n, costs, notes, tables and plots."""
        return _view(current_deps().store.get_benchmark(_known_id(benchmark_id)))

    @app.get(
        "/benchmarks/<benchmark_id>/plots/<name>",
        responses={
            200: {"description": "The plot.", "content": {"image/png": {"schema": {"type": "string"}}}},
        },
    )
    # No return annotation: Powertools would validate the body against it as JSON, and a PNG is not.
    def get_benchmark_plot(benchmark_id: str, name: str):  # type: ignore[no-untyped-def]
        """One of a scorecard's plots (PNG)."""
        if not PLOT_NAME.fullmatch(name):
            raise NotFoundError(f"benchmark {benchmark_id} has no plot {name}")
        png = current_deps().store.get_benchmark_plot(_known_id(benchmark_id), name)
        return Response(200, "image/png", png)
