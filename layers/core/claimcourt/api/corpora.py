"""The HTTP API's document collections: `/corpora` and `/corpora/{name}/documents`, each the key's
tenant's own (another tenant's collection is a 404, as one that does not exist).

Uploads are the one body that is not JSON: `PUT /corpora/{name}/documents` takes the document itself
(a raw body named by `?filename=` or a Content-Disposition header) or several as multipart/form-data,
up to 25 MB a document, within the tenant's quota (CLAIMCOURT_COLLECTIONS_QUOTA_MB). Each document is
read as `claimcourt corpus add` reads it; one that cannot be is listed with its reason and the rest go
in (200), and a request of which nothing went in is a 422 naming each reason.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from datetime import datetime
from pathlib import PurePosixPath, PureWindowsPath
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response
from aws_lambda_powertools.event_handler.openapi.params import Query
from pydantic import BaseModel, ConfigDict, Field

from claimcourt.errors import (
    ConfigurationError,
    ConflictError,
    InvalidRequestError,
    MalformedRequestError,
    TooLargeError,
    UnreadableDocumentsError,
)
from claimcourt.evidence.collections import (
    CollectionInfo,
    Collections,
    DocumentEntry,
    Outcome,
    Prepared,
    Uploads,
)
from claimcourt.evidence.documents import MAX_DOCUMENT_BYTES, Unreadable, kind_of, megabytes, unsupported
from claimcourt.models import CorpusName, Tier
from claimcourt.wiring import current_deps

# A request may carry a document of the largest size and the multipart framing around it.
MAX_UPLOAD_BYTES = MAX_DOCUMENT_BYTES + 1024 * 1024
_UPLOAD = re.compile(r"^/corpora/[^/]+/documents/?$")


def is_upload(method: str, path: str) -> bool:
    """The request whose body is a document (not JSON), and may be as large as one."""
    return method.upper() == "PUT" and _UPLOAD.fullmatch(path) is not None


class CorpusRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: CorpusName = Field(description="a-z, 0-9, - and _, up to 63, starting with a letter or digit.")
    tier: Tier = Field(
        default="T2", description="T1 for primary records (filings, statistics); T2 otherwise."
    )


class CorpusLinks(BaseModel):
    self: str
    documents: str


class CorpusView(CollectionInfo):
    links: CorpusLinks


class CorpusList(BaseModel):
    corpora: list[CorpusView] = Field(description="The bundled `climate` first, then the tenant's own.")


class UploadView(BaseModel):
    id: str
    filename: str
    status: str = Field(description="pending (the index function has not read it yet), or skipped.")
    reason: str | None = Field(default=None, description="Why a skipped upload did not go in.")
    created_at: datetime


class DocumentList(BaseModel):
    corpus: CorpusView
    documents: list[DocumentEntry]
    uploads: list[UploadView] = Field(
        default_factory=list,
        description="A stack's uploads not in the collection: pending, or skipped and why.",
    )


class UploadRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    filename: str = Field(min_length=1, max_length=255, description="The document's file name (its kind).")


class UploadTicketView(BaseModel):
    upload: UploadView
    url: str = Field(description="POST the form here: `fields` as they are, then the document as `file`.")
    fields: dict[str, str]
    expires_at: datetime
    max_bytes: int


class DocumentOutcome(BaseModel):
    filename: str
    status: str = Field(
        description="added, replaced, unchanged, or skipped (then `reason` says why); on a stack, pending."
    )
    reason: str | None = None
    document: DocumentEntry | None = None


class UploadResult(BaseModel):
    corpus: CorpusView
    documents: list[DocumentOutcome]


def _view(info: CollectionInfo) -> CorpusView:
    base = f"/corpora/{info.name}"
    return CorpusView(**info.model_dump(), links=CorpusLinks(self=base, documents=f"{base}/documents"))


def _collections() -> Collections:
    found = current_deps().collections
    if found is None:
        raise ConfigurationError("document collections are not available on this deployment")
    return found


def register(app: APIGatewayHttpResolver, tenant: Callable[[], str]) -> None:
    """Add the collection routes to the API's resolver."""

    @app.post(
        "/corpora", responses={201: {"description": "Made (empty): add documents with PUT …/documents."}}
    )
    def post_corpus(request: CorpusRequest) -> Response[CorpusView]:
        """Make a collection (409 collection_exists: the tenant has one of that name, or it is `climate`)."""
        view = _view(_collections().create(tenant(), request.name, request.tier))
        return Response(201, "application/json", view, headers={"Location": view.links.self})

    @app.get("/corpora")
    def list_corpora() -> CorpusList:
        return CorpusList(corpora=[_view(c) for c in _collections().list_collections(tenant())])

    @app.get("/corpora/<name>")
    def get_corpus(name: str) -> CorpusView:
        return _view(_collections().get(tenant(), name))

    @app.delete("/corpora/<name>", responses={204: {"description": "Deleted, with its documents and index."}})
    def delete_corpus(name: str) -> Response[None]:
        """Delete a collection (409 collection_read_only for `climate`); runs naming it then are refused."""
        _collections().delete(tenant(), name)
        return Response(status_code=204)

    @app.get("/corpora/<name>/documents")
    def list_documents(name: str) -> DocumentList:
        collections = _collections()
        pending = collections.uploads(tenant(), name) if isinstance(collections, Uploads) else []
        return DocumentList(
            corpus=_view(collections.get(tenant(), name)),
            documents=collections.documents(tenant(), name),
            uploads=[UploadView(**u.model_dump()) for u in pending],
        )

    @app.post(
        "/corpora/<name>/uploads",
        responses={201: {"description": "A presigned S3 POST for one document (a stack's only)."}},
    )
    def post_upload(name: str, request: UploadRequest) -> Response[UploadTicketView]:
        """Send a document of up to 25 MB straight to the stack's bucket: POST the returned form to `url`
        (`fields`, then the file as `file`) before `expires_at`; the index function puts it in, and GET
        …/documents shows it pending, then in, or skipped with the reason."""
        collections, owner = _collections(), tenant()
        if not isinstance(collections, Uploads):
            # A request this server cannot serve as asked, not a fault of its set-up: 409, with the way it can
            raise ConflictError(
                "uploads by presigned URL are a deployed stack's; "
                "here, PUT the file to /corpora/{name}/documents",
                code="presigned_uploads_unavailable",
            )
        filename = _safe_name(request.filename)
        if kind_of(filename) is None:
            raise InvalidRequestError(
                "filename", unsupported(PurePosixPath(filename).suffix or "no extension")
            )
        _within_quota(collections, owner, MAX_DOCUMENT_BYTES)  # what its POST may bring, at most
        ticket = collections.presign(owner, name, filename)
        view = UploadTicketView(
            upload=UploadView(**ticket.upload.model_dump()),
            url=ticket.url,
            fields=ticket.fields,
            expires_at=ticket.expires_at,
            max_bytes=ticket.max_bytes,
        )
        return Response(201, "application/json", view)

    @app.delete(
        "/corpora/<name>/documents/<document>", responses={204: {"description": "Its passages are gone."}}
    )
    def delete_document(name: str, document: str) -> Response[None]:
        """Take one document out (named by its id, or its file name)."""
        _collections().remove(tenant(), name, document)
        return Response(status_code=204)

    @app.put(
        "/corpora/<name>/documents",
        responses={
            200: {"description": "Each document's outcome: added, replaced, unchanged, or skipped with why."},
            202: {
                "description": "On a stack: each document pending, for the index function (GET …/documents)."
            },
            413: {
                "description": "A document over 25 MB (document_too_large), or the quota (quota_exceeded)."
            },
            422: {"description": "Nothing went in (unreadable_document: each reason), or no document sent."},
        },
    )
    def put_documents(
        name: str,
        filename: Annotated[
            str | None,
            Query(max_length=255, description="A raw body's file name (or give it in Content-Disposition)."),
        ] = None,
    ) -> Response[UploadResult]:
        """Add documents: the body is one document (PDF, HTML, Markdown, UTF-8 text, DOCX), named by
        `?filename=` or Content-Disposition, or several as multipart/form-data. A document of the same
        name is replaced; the same bytes again change nothing."""
        collections, owner = _collections(), tenant()
        before = collections.get(owner, name)  # 404 before anything is read
        event = app.current_event
        uploads = _uploads(event.headers, event.raw_event, filename)
        _within_quota(collections, owner, sum(len(data) for _, data, _ in uploads))
        if isinstance(collections, Uploads):  # a stack: the index function reads them, as a presigned POST's
            staged = [collections.stage(owner, name, n, data) for n, data, _ in uploads]
            listed = [DocumentOutcome(filename=u.filename, status=u.status) for u in staged]
            return Response(202, "application/json", UploadResult(corpus=_view(before), documents=listed))
        read: list[Prepared] = []
        outcomes: list[Outcome | None] = []
        for upload_name, data, media_type in uploads:
            from claimcourt.evidence.ingest import read_upload  # the readers: only when a document comes

            try:
                read.append(read_upload(upload_name, data, media_type))
                outcomes.append(None)
            except Unreadable as exc:
                outcomes.append(Outcome(upload_name, "skipped", exc.reason))
        put = iter(collections.put(owner, name, read) if read else [])
        done = [o if o is not None else next(put) for o in outcomes]
        listed = [
            DocumentOutcome(filename=o.source, status=o.status, reason=o.reason, document=o.document)
            for o in done
        ]
        if all(o.status == "skipped" for o in done):
            reasons = "; ".join(f"{o.source}: {o.reason}" for o in done)
            raise UnreadableDocumentsError(
                f"nothing went in: {reasons}", [d.model_dump(mode="json") for d in listed]
            )
        after = collections.get(owner, name) if read else before
        return Response(200, "application/json", UploadResult(corpus=_view(after), documents=listed))


Upload = tuple[str, bytes, str | None]  # a document's file name, its bytes, its media type if given


def _uploads(headers: dict[str, str], event: dict[str, Any], filename: str | None) -> list[Upload]:
    """Each document the request carries."""
    raw = event.get("body") or ""
    body = base64.b64decode(raw) if event.get("isBase64Encoded") else raw.encode("utf-8")
    lowered = {k.lower(): v for k, v in headers.items()}
    content_type = lowered.get("content-type", "")
    if not body:
        raise InvalidRequestError(
            "body", "no document: send one as the body, or several as multipart/form-data"
        )
    if content_type.split(";")[0].strip().lower() == "multipart/form-data":
        found = _parts(content_type, body)
    else:
        named = filename or _disposition_filename(lowered.get("content-disposition", ""))
        if not named:
            raise InvalidRequestError(
                "filename", "name the document: ?filename=report.pdf or Content-Disposition"
            )
        found = [(named, body, content_type or None)]
    uploads = [(_safe_name(n), data, media) for n, data, media in found]
    for n, data, _ in uploads:
        if len(data) > MAX_DOCUMENT_BYTES:
            limit = megabytes(MAX_DOCUMENT_BYTES)
            raise TooLargeError(
                f"{n} is {megabytes(len(data))}, over the {limit} limit", "document_too_large"
            )
    return uploads


def _parts(content_type: str, body: bytes) -> list[Upload]:
    """The files of a multipart/form-data body (plain form fields, parts without a file name, left out)."""
    from email.message import EmailMessage  # the standard library's MIME parser: only for an upload
    from email.parser import BytesParser
    from email.policy import HTTP

    try:  # a header as it came over the wire (the local server reads its bytes as Latin-1)
        header = content_type.encode("latin-1")
    except UnicodeEncodeError:  # API Gateway hands on any character; a boundary is ASCII (RFC 2046)
        raise MalformedRequestError(
            "the multipart Content-Type holds a character no header can carry: give an ASCII boundary",
            "malformed_multipart",
        ) from None
    message = BytesParser(policy=HTTP).parsebytes(b"Content-Type: " + header + b"\r\n\r\n" + body)
    if not isinstance(message, EmailMessage) or not message.is_multipart():
        raise MalformedRequestError(
            "the multipart body could not be read (its boundary?)", "malformed_multipart"
        )
    files: list[Upload] = []
    for part in message.iter_parts():
        name = part.get_filename()
        if name:
            payload = part.get_payload(decode=True)
            files.append((name, payload if isinstance(payload, bytes) else b"", part.get_content_type()))
    if not files:
        raise InvalidRequestError("body", "no file in the multipart body (each needs a filename)")
    return files


def _disposition_filename(header: str) -> str | None:
    from email.message import EmailMessage

    if not header:
        return None
    message = EmailMessage()
    message["Content-Disposition"] = header
    return message.get_filename()


def _safe_name(name: str) -> str:
    """A file name without any folder it came with (a client's path is not ours), and printable."""
    base = PureWindowsPath(PurePosixPath(name).name).name.strip()
    if (
        not base
        or base in (".", "..")
        or any(ord(ch) < 32 or ord(ch) == 127 for ch in base)
        or len(base) > 255
    ):
        raise InvalidRequestError("filename", f"{name!r} is not a usable file name")
    return base


def _within_quota(collections: Collections, tenant: str, adding: int) -> None:
    quota = current_deps().settings.collections_quota_mb * 1024 * 1024
    mine = [c for c in collections.list_collections(tenant) if not c.bundled]
    held = sum(c.size for c in mine)
    waiting = 0
    if isinstance(collections, Uploads):
        # A stack: an upload not yet read counts at the most it may be, until it is read or its URL
        # lapses unused (uploads() settles that one as never arrived).
        waiting = sum(1 for c in mine for u in collections.uploads(tenant, c.name) if u.status == "pending")
    if held + waiting * MAX_DOCUMENT_BYTES + adding > quota:
        pending = (
            f" and {waiting} upload{'s' * (waiting != 1)} not yet read, at up to "
            f"{megabytes(MAX_DOCUMENT_BYTES)} each until read or, unused, until its URL lapses"
            if waiting
            else ""
        )
        raise TooLargeError(
            f"the tenant's collections hold {megabytes(held)}{pending}; {megabytes(adding)} more is over "
            f"its {megabytes(quota)} quota (CLAIMCOURT_COLLECTIONS_QUOTA_MB): remove documents first",
            "quota_exceeded",
        )
