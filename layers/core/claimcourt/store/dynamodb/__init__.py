"""The cloud store: DynamoDB (one main table, single-table design, plus a TTL table for the
retrieval cache) with S3 for documents too big for an item.

Main table (pk, sk; GSI `gsi1` on gsi1pk, gsi1sk; stream NEW_IMAGE):

    pk                  sk                      what
    RUN#<run_id>        RUN                     the run record    gsi1: RUNS#<tenant> / <created_at>#<run_id>
                                                                  gsi2: RUNS#<tenant>#<source tag> / same
    RUN#<run_id>        EVSEQ                   the run's event counter
    RUN#<run_id>        EV#<seq, 10 digits>     a progress event
    RUN#<run_id>        EVKEY#<key>             an event's idempotency key
    RUN#<run_id>        ART#<key>               an artifact (evidence/r01/sc1, argument/r01/for, …)
    RUN#<run_id>        CALL#<call_key>         a billed LLM call (the usage ledger)
    CLAIM#<tenant>#<id> CLAIM                   a tenant's claim  gsi1: CLAIMS#<tenant> / <last_seen>#<id>
    CLAIM#<tenant>#<id> DRIFT#<at>#<run_id>     one point of the claim's score series
    KEY#<key_id>        KEY                     an API key (digest only)  gsi1: KEYS / <tenant>#<created>#<id>
    MON#<monitor_id>    MON                     a monitor     gsi1: MONITORS#<tenant> / <claim>#<created>#<id>
                                                                  gsi2: DUE / <next_due>#<id>
    LEASES              COUNT                   how many leases are held (the concurrency cap's counter)
    LEASES              LEASE#<run_id>          a running debate's lease
    BENCH#<id>          BENCH                   a benchmark    gsi1: BENCHMARKS / <recorded_at>#<id>
                                                (its PNG plots in the bucket: benchmarks/<id>/<name>)

A soft-deleted run's item loses its gsi1/gsi2 keys, so the sparse indexes stop listing it; its claim
counts it out and its drift point goes (a claim with no runs left loses its gsi1 keys too). Listings
are per tenant, which also spreads the index's write load over one partition per tenant. The
per-caller hourly counters are in the limits table (TTL): HOURLY#<tenant>#<yyyymmddhh>.

Connections table (pk, sk; GSI `gsi1`; TTL on `expires_at`, which expired items are also read past,
since TTL deletes lazily):

    pk                  sk                      what
    CONN#<id>           CONN                    a WebSocket connection (its tenant and key id)
    RUN#<run_id>        CONN#<id>               a subscription: sent_seq, claimed_until (ms), claimed_by
                                                                  gsi1: CONN#<id> / RUN#<run_id>

Everything of a run is one partition, so a stage reads what it needs with one Query. gsi1 projects
keys and a few small attributes, never documents: listing runs reads their documents by key
(BatchGetItem). Every item has a `kind` attribute, for stream filters. Every read is a GetItem,
a BatchGetItem or a Query: never a Scan.

JSON documents (records, events, artifacts, calls) are one string attribute `doc`, not native maps:
nothing queries inside a document (keys and index attributes carry what queries need), and a
string avoids DynamoDB's Decimal numbers, its empty-set rules and a second (de)serializer.

The shared handle (clients, table names, documents inline or in S3, the reads and the one retry
loop) is `tables.py`; each capability of the Store port is one module over it, and `DynamoStore`
is all of them.
"""

from __future__ import annotations

from claimcourt.store.dynamodb.admission import DynamoAdmission
from claimcourt.store.dynamodb.artifacts import DynamoArtifacts
from claimcourt.store.dynamodb.benchmarks import DynamoBenchmarks
from claimcourt.store.dynamodb.cache import DynamoCache
from claimcourt.store.dynamodb.calls import DynamoCalls
from claimcourt.store.dynamodb.claims import DynamoClaims
from claimcourt.store.dynamodb.connections import DynamoConnections
from claimcourt.store.dynamodb.events import DynamoEvents
from claimcourt.store.dynamodb.keys import DynamoKeys
from claimcourt.store.dynamodb.monitors import DynamoMonitors
from claimcourt.store.dynamodb.runs import DynamoRuns
from claimcourt.store.dynamodb.tables import INLINE_LIMIT, DynamoTables

__all__ = ["BATCH_KEYS", "INLINE_LIMIT", "DynamoStore", "DynamoTables"]

BATCH_KEYS = 100  # BatchGetItem's limit per request (tables.py reads it here at each batch read)


class DynamoStore(
    DynamoRuns,
    DynamoEvents,
    DynamoArtifacts,
    DynamoCalls,
    DynamoCache,
    DynamoClaims,
    DynamoKeys,
    DynamoAdmission,
    DynamoMonitors,
    DynamoConnections,
    DynamoBenchmarks,
):
    """Every capability over one set of tables: `DynamoStore(table, cache_table, limits_table,
    connections_table, bucket, …)` (see DynamoTables)."""
