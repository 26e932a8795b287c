"""`claimcourt corpus …`: a tenant's document collections on this machine (the data directory).

`add` reads files, folders and urls into a collection (made if it is new) and says what became of each
document: added, replaced, unchanged, or skipped with the reason. Exit status: 0 when every document went
in (or was already in), 1 when any was skipped, 2 for bad input (nothing changed).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import click
from rich.markup import escape

from claimcourt.cli.commands import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    _fail,
    _settings,
    _tenant,
    data_dir_option,
    err,
    main,
    out,
)
from claimcourt.errors import ConflictError, InvalidRequestError, NotFoundError
from claimcourt.evidence.collections import BUNDLED, CollectionInfo, Collections, DocumentEntry, Outcome
from claimcourt.evidence.ingest import count
from claimcourt.models import LOCAL_TENANT, Tier
from claimcourt.settings import Settings
from claimcourt.wiring import build_collections

TIERS = click.Choice(["T1", "T2"])

tenant_option = click.option(
    "--tenant",
    default=LOCAL_TENANT,
    show_default=True,
    callback=_tenant,
    help="Whose collections (the API's are its key's tenant's).",
)


def _collections(data_dir: Path | None, settings: Settings | None = None) -> Collections:
    found = build_collections(settings or _settings(data_dir))
    if found is None:
        _fail("document collections need bm25s: pip install 'claimcourt[local]'", EXIT_BAD_INPUT)
    return found


def _refused(exc: InvalidRequestError | NotFoundError | ConflictError) -> None:
    message = f"{exc.field}: {exc.message}" if isinstance(exc, InvalidRequestError) else str(exc)
    _fail(message, EXIT_BAD_INPUT)


@main.group()
def corpus() -> None:
    """Document collections: your PDFs, web pages, Markdown, text and DOCX files, searched by BM25.
    A run searches the ones it names (`run … --corpus NAME`); `climate`, the bundled corpus, is one."""


@corpus.command("create")
@click.argument("name")
@click.option("--tier", type=TIERS, default="T2", show_default=True, help="T1: primary records.")
@tenant_option
@data_dir_option
def corpus_create(name: str, tier: str, tenant: str, data_dir: Path | None) -> None:
    """Make an empty collection NAME (an existing name is refused)."""
    try:
        made = _collections(data_dir).create(tenant, name, _tier(tier))
    except (InvalidRequestError, ConflictError) as exc:
        _refused(exc)
    err.print(f"collection {made.name} ({made.tier}) made for tenant {tenant}")


@corpus.command("add")
@click.argument("name")
@click.argument("targets", nargs=-1, required=True, metavar="PATH|URL...")
@click.option(
    "--tier",
    type=TIERS,
    default=None,
    help="A new collection's tier: T1 for primary records (filings, statistics), T2 (the default) else.",
)
@click.option("--json", "as_json", is_flag=True, help="Print what became of each document as JSON.")
@tenant_option
@data_dir_option
def corpus_add(
    name: str, targets: tuple[str, ...], tier: str | None, as_json: bool, tenant: str, data_dir: Path | None
) -> None:
    """Read files, folders (recursively) and http(s) urls into collection NAME, made if it is new.
    PDF, HTML, Markdown, plain text (UTF-8) and DOCX; up to 25 MB a document. A url on this machine or
    a private network is refused unless CLAIMCOURT_FETCH_PRIVATE_PAGES=true."""
    from claimcourt.evidence.fetch import fetch
    from claimcourt.evidence.ingest import ingest

    settings = _settings(data_dir)
    collections = _collections(data_dir, settings)
    try:
        held = _held_or_made(collections, tenant, name, tier)
        outcomes = ingest(
            collections,
            tenant,
            name,
            targets,
            fetcher=functools.partial(fetch, private=settings.fetch_private_pages),
            on_read=_reading,
        )
    except (InvalidRequestError, NotFoundError, ConflictError) as exc:
        _refused(exc)
    after = collections.get(tenant, name)
    skipped = [o for o in outcomes if o.status == "skipped"]
    if as_json:
        click.echo(
            json.dumps({"collection": _info(after), "documents": [_outcome(o) for o in outcomes]}, indent=2)
        )
    else:
        for o in outcomes:
            out.print(_outcome_line(o), markup=False)
        out.print(
            f"{after.name} ({after.tier}): {after.documents} documents, {after.passages} passages, "
            f"version {after.version}" + (f"; {held} before" if held is not None else "; new"),
            markup=False,
        )
    if skipped:
        err.print(f"[red]{len(skipped)} of {len(outcomes)} not added: each is named above with the reason[/]")
        raise SystemExit(EXIT_FAILED)


def _reading(source: str, note: str) -> None:
    """Progress as documents are read (what was skipped is listed with the outcomes)."""
    if note.startswith("read"):
        err.print(f"[dim]{escape(_short(source))}: {escape(note)}[/]")


def _held_or_made(collections: Collections, tenant: str, name: str, tier: str | None) -> str | None:
    """What the collection held before (None: made now). A tier given for an existing collection must
    be its own: a collection's tier is set when it is made."""
    try:
        before = collections.get(tenant, name)
    except NotFoundError:
        collections.create(tenant, name, _tier(tier or "T2"))
        return None
    if before.bundled:
        raise ConflictError(f"{BUNDLED} is the bundled corpus: it cannot be changed", "collection_read_only")
    if tier is not None and tier != before.tier:
        raise InvalidRequestError(
            "tier", f"collection {name} is {before.tier}: a tier is set when a collection is made"
        )
    return f"{before.documents} documents"


@corpus.command("list")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per collection, per line.")
@tenant_option
@data_dir_option
def corpus_list(as_json: bool, tenant: str, data_dir: Path | None) -> None:
    """List the tenant's collections (the bundled `climate` first)."""
    found = _collections(data_dir).list_collections(tenant)
    if as_json:
        for info in found:
            click.echo(json.dumps(_info(info)))
        return
    click.echo(f"{'NAME':<24} {'TIER':<4}  {'DOCUMENTS':>9}  {'PASSAGES':>9}  {'SIZE':>9}  VERSION")
    for info in found:
        documents = "bundled" if info.bundled else str(info.documents)
        click.echo(
            f"{info.name:<24} {info.tier:<4}  {documents:>9}  {info.passages:>9}  {_size(info.size):>9}  "
            f"{info.version}"
        )


@corpus.command("show")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="The collection and its documents as JSON.")
@tenant_option
@data_dir_option
def corpus_show(name: str, as_json: bool, tenant: str, data_dir: Path | None) -> None:
    """Show collection NAME: its tier, version and documents."""
    collections = _collections(data_dir)
    try:
        info, documents = collections.get(tenant, name), collections.documents(tenant, name)
    except (InvalidRequestError, NotFoundError) as exc:
        _refused(exc)
    if as_json:
        doc = {"collection": _info(info), "documents": [d.model_dump(mode="json") for d in documents]}
        click.echo(json.dumps(doc, indent=2))
        return
    what = "the bundled CLIMATE-FEVER Wikipedia sentences, read-only" if info.bundled else f"tier {info.tier}"
    click.echo(
        f"{info.name}: {what}; {info.documents} documents, {info.passages} passages, version {info.version}"
    )
    if documents:
        click.echo(
            f"\n{'ID':<12}  {'KIND':<8} {'PAGES':>5} {'PASSAGES':>8}  {'PUBLISHED':<10}  TITLE — SOURCE"
        )
    for d in documents:
        click.echo(
            f"{d.id:<12}  {d.kind:<8} {d.pages or '':>5} {d.passages:>8}  "
            f"{d.published.isoformat() if d.published else '':<10}  {d.title} — {d.source}"
        )


@corpus.command("remove")
@click.argument("name")
@click.argument("document", required=False)
@tenant_option
@data_dir_option
def corpus_remove(name: str, document: str | None, tenant: str, data_dir: Path | None) -> None:
    """Remove collection NAME, or only its DOCUMENT (its id, path, url or file name, as `show` lists)."""
    collections = _collections(data_dir)
    try:
        if document is None:
            collections.delete(tenant, name)
            err.print(f"removed collection {name}")
            return
        gone = collections.remove(tenant, name, document)
    except (InvalidRequestError, NotFoundError, ConflictError) as exc:
        _refused(exc)
    left = collections.get(tenant, name)
    err.print(f"removed {gone.source} ({gone.passages} passages); {name} holds {left.documents} documents")


def _tier(tier: str) -> Tier:
    return "T1" if tier == "T1" else "T2"


def _info(info: CollectionInfo) -> dict[str, Any]:
    return info.model_dump(mode="json")


def _outcome(o: Outcome) -> dict[str, Any]:
    document: DocumentEntry | None = o.document
    return {
        "source": o.source,
        "status": o.status,
        "reason": o.reason,
        "document": document.model_dump(mode="json") if document is not None else None,
    }


def _outcome_line(o: Outcome) -> str:
    line = f"{o.status:<9}  {_short(o.source)}"
    if o.document is not None and o.status in ("added", "replaced"):
        d = o.document
        line += (
            f"  ({count(d.passages, 'passage')}" + (f", {count(d.pages, 'page')}" if d.pages else "") + ")"
        )
    return line + (f": {o.reason}" if o.reason else "")


def _short(source: str) -> str:
    """A path relative to here when it is under here; anything else as it is."""
    try:
        return str(Path(source).relative_to(Path.cwd()))
    except ValueError:
        return source


def _size(size: int) -> str:
    if size < 1024 * 1024:
        return f"{size / 1024:.0f} KB" if size else "-"
    return f"{size / (1024 * 1024):.1f} MB"
