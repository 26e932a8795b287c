"""A motion debate's artifacts as the seed spec names them: an offline debate through the real motion
state machine, every artifact exported by `claimcourt export` and served by the API, each valid against
its schema in docs/schemas/; today's names kept beside them; a claim run still serving its four."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from click.testing import CliRunner

from claimcourt import artifacts
from claimcourt.access import issue_key
from claimcourt.api.http import handler
from claimcourt.cli import main
from claimcourt.exports import CLAIM_ARTIFACTS, MEDIA_TYPES, MOTION_ARTIFACTS
from claimcourt.models import LOCAL_TENANT, MotionRequest
from claimcourt.motion_artifacts import SCHEMAS
from claimcourt.motions.crowd import persona_set
from claimcourt.runs import create_run, parse_request
from claimcourt.store.sqlite import SqliteStore
from claimcourt.wiring import use_deps
from tests.fakes.apigw import LambdaContext, http_event

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("clean_env")]
ROOT = Path(__file__).parent.parent.parent
MOTION = "Resolved: sea levels are rising."  # the tests' passages speak to it both ways: both teams cite


def _schema(file: str) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((ROOT / "docs" / "schemas" / file).read_text())
    return schema


def _validate(name: str, content: str) -> None:
    """Against the committed schema: a JSON artifact whole, a CSV row by row."""
    file, _ = SCHEMAS[name]
    if name.endswith(".csv"):
        rows = list(csv.DictReader(io.StringIO(content)))
        assert rows, f"{name} has no rows"
        for row in rows:
            jsonschema_rs.validate(_schema(file), row)
    else:
        jsonschema_rs.validate(_schema(file), json.loads(content))


@pytest.fixture
def debate(make_deps: Any, runtime: Any, store: SqliteStore) -> tuple[Any, str]:
    record = create_run(store, MotionRequest(motion=MOTION, first="against"))
    deps = make_deps()
    execution = runtime(deps).execute(record.run_id, timeout_s=60)
    assert execution.status == "SUCCEEDED", execution.error
    return deps, record.run_id


def test_every_artifact_of_a_motion_debate_is_exported_and_served_valid_against_its_schema(
    debate: tuple[Any, str], store: SqliteStore, tmp_path: Path
) -> None:
    deps, run_id = debate
    out = tmp_path / "export"
    exported = CliRunner().invoke(main, ["export", run_id, "--dir", str(out), "--data-dir", str(tmp_path)])
    assert exported.exit_code == 0, exported.output
    files = {name: (out / f"{run_id}-{name}").read_text() for name in MOTION_ARTIFACTS}
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{run_id}-{n}" for n in MOTION_ARTIFACTS)
    for name in SCHEMAS:
        _validate(name, files[name])

    key, _ = issue_key(store, LOCAL_TENANT)
    with use_deps(deps):
        for name in MOTION_ARTIFACTS:
            for path in (f"/runs/{run_id}/artifacts/{name}", f"/motions/{run_id}/artifacts/{name}"):
                reply = handler(
                    http_event("GET", path, headers={"authorization": f"Bearer {key}"}), LambdaContext()
                )
                headers = {k.lower(): v for k, v in reply["headers"].items()}
                assert reply["statusCode"] == 200, (path, reply["body"])
                assert headers["content-type"] == MEDIA_TYPES[name]
                assert reply["body"] == files[name], f"{path} differs from the CLI's export"

    # citation_ledger.json: per team, a_/b_ keys (team a spoke first: here the team against), today's
    # for_/against_ keys as aliases, who added and who verified each, when, from the run's own events
    ledger = json.loads(files["citation_ledger.json"])
    assert ledger["teams"] == {"a": "against", "b": "for"}
    team_a, team_b = ledger["citations"]["team a"], ledger["citations"]["team b"]
    assert team_a and team_b
    public_a = {k: c for k, c in team_a.items() if not c["private"]}
    public_b = {k: c for k, c in team_b.items() if not c["private"]}
    assert all(k.startswith("a_") and c["alias"].startswith("against_") for k, c in public_a.items())
    assert all(k.startswith("b_") and c["alias"].startswith("for_") for k, c in public_b.items())
    assert {c["added_by"] for c in team_a.values()} == {"debator_a"}
    checked = [c for c in team_a.values() if c["verification"]["content_correspondence_score"] is not None]
    assert checked and all(c["verification"]["verified_by"] == "factchecker_b" for c in checked)
    events = store.list_events(run_id)
    stamps = {e.at.isoformat().replace("+00:00", "Z") for e in events if e.type == "stage.completed"}
    stamped = [c["added_at"] for c in team_a.values()] + [c["verification"]["verified_at"] for c in checked]
    assert all(s is not None and s.replace("+00:00", "Z") in stamps for s in stamped)
    assert sorted(k for keys in ledger["index_by_round"].values() for k in keys) == sorted([*team_a, *team_b])

    # a passage cited only in a team's notes is its private entry, numbered after its public ones,
    # never checked; the run's flat ledger (what every role read) holds only the public ones
    for team, public in (("a", public_a), ("b", public_b)):
        private = {k: c for k, c in ledger["citations"][f"team {team}"].items() if c["private"]}
        assert private, f"team {team}'s notes cited nothing the team did not cite aloud"
        assert min(int(k.split("_")[1]) for k in private) == len(public) + 1
        assert all(c["alias"] is None and set(c["verification"].values()) == {None} for c in private.values())
    flat = artifacts.whole_ledger(store, run_id, None)
    assert sorted(e.key for e in flat) == sorted(c["alias"] for c in [*public_a.values(), *public_b.values()])

    # debate_logic_map.json: an array of the judge's states, round by round, in a/b stances
    logic = json.loads(files["debate_logic_map.json"])
    assert [s["round_number"] for s in logic] == [1, 2, 3, 4]
    assert [s["round_label"] for s in logic] == ["Opening", "Debate", "Debate", "Closing"]
    frontier = [f for s in logic for f in s["disagreement_frontier"]]
    assert frontier and all(f["a_stance"] and f["b_stance"] for f in frontier)

    # history_chat.json: every turn, in speaking order, its citations by their team keys
    chat = json.loads(files["history_chat.json"])
    turns = chat["public_transcript"]
    assert [t["turn_id"] for t in turns] == [f"turn_{i:03d}" for i in range(1, 9)]
    assert [t["agent"] for t in turns[:2]] == ["debator_a", "debator_b"]
    assert all(t["timestamp"] is not None for t in turns)
    assert [t["timestamp"] for t in turns] == sorted(t["timestamp"] for t in turns)
    cited = {k for t in turns for k in t["citations_used"]}
    assert cited == {*public_a, *public_b}
    spoken = artifacts.spoken_in_order(store, run_id)
    assert [t["statement"] for t in turns] == [a.points[0].argument for a in spoken]
    # each team's notes as each turn wrote them (realistic length, no word limit), their citations by
    # the team's ledger keys: the public key of a passage the team also cited aloud, else the private one
    for team in ("a", "b"):
        notes = chat["team_notes"][team]
        assert [n["turn_id"] for n in notes] == [t["turn_id"] for t in turns if t["speaker"] == team]
        group = ledger["citations"][f"team {team}"]
        for n in notes:
            side = ledger["teams"][team]
            turn = store.get_artifact(run_id, artifacts.turn_key(n["round_number"], side))
            assert n["supplementary_material"] == turn["notes"] and len(turn["notes"].split()) >= 50
            assert [group[k]["evidence_id"] for k in n["citations_used"]] == turn["note_citations"]
            assert all(
                f"[{group[k]['evidence_id']}]" in n["supplementary_material"] for k in n["citations_used"]
            )
        assert {k for k, c in group.items() if c["private"]} <= {
            k for n in notes for k in n["citations_used"]
        }

    # crowd_opinion.json and voter_sentiment_graph.csv: every voter, every round, with its reason
    opinion = json.loads(files["crowd_opinion.json"])
    names = {p.id: p.name for p in persona_set()[1]}
    said = {(r, v.persona_id): v for r in range(5) for v in artifacts.votes_of(store, run_id, r)}
    assert len(opinion["voters"]) == 24
    for voter in opinion["voters"]:
        assert voter["persona"] == names[voter["voter_id"]]
        assert [v["round_sequence"] for v in voter["voting_record"]] == [0, 1, 2, 3, 4]
        for v in voter["voting_record"]:
            vote = said[(v["round_sequence"], voter["voter_id"])]
            assert (v["score"], v["reason"]) == (vote.score, vote.reason)
    rows = list(csv.DictReader(io.StringIO(files["voter_sentiment_graph.csv"])))
    assert len(rows) == 24 * 5
    tallies = {t.round: t for t in artifacts.tallies_of(store, run_id)}
    assert all(int(r["score"]) == tallies[int(r["round_sequence"])].scores[r["voter_id"]] for r in rows)

    # today's name stays: score_trajectory.csv still carries every voter's score per round
    trajectory = list(csv.DictReader(io.StringIO(files["score_trajectory.csv"])))
    assert len([r for r in trajectory if r["role"].startswith("voter:")]) == 24 * 5


def test_a_motions_ledger_reads_a_and_b_as_its_first_and_second_speaker(
    debate: tuple[Any, str], store: SqliteStore
) -> None:
    """GET /runs/{id}/ledger?key=a_1 names the entry citation_ledger.json calls a_1: team a spoke first
    (here the team against), whatever side that was; for_/against_ stay as they were."""
    deps, run_id = debate
    key, _ = issue_key(store, LOCAL_TENANT)
    with use_deps(deps):

        def entry(wanted: str) -> list[str]:
            event = http_event(
                "GET", f"/runs/{run_id}/ledger", headers={"authorization": f"Bearer {key}"},
                query={"key": wanted},
            )  # fmt: skip
            reply = handler(event, LambdaContext())
            assert reply["statusCode"] == 200, reply["body"]
            return [(c["key"], c["evidence_id"]) for c in json.loads(reply["body"])["citations"]]

        served = json.loads(
            handler(
                http_event("GET", f"/runs/{run_id}/artifacts/citation_ledger.json",
                           headers={"authorization": f"Bearer {key}"}),
                LambdaContext(),
            )["body"]
        )  # fmt: skip
    team_a, team_b = served["citations"]["team a"], served["citations"]["team b"]
    assert served["teams"] == {"a": "against", "b": "for"}
    assert entry("a_1") == [("against_1", team_a["a_1"]["evidence_id"])] == entry("against_1")
    assert entry("b_1") == [("for_1", team_b["b_1"]["evidence_id"])] == entry("for_1")
    assert entry("A_2") == entry("against_2") != []


def test_a_claim_run_serves_its_four_and_not_a_motions(make_deps: Any, store: SqliteStore) -> None:
    run = create_run(store, parse_request({"claim": "Arctic sea ice has declined since 1979"}))
    key, _ = issue_key(store, LOCAL_TENANT)
    deps = make_deps()
    with use_deps(deps):

        def fetch(name: str) -> dict[str, Any]:
            event = http_event(
                "GET", f"/runs/{run.run_id}/artifacts/{name}", headers={"authorization": f"Bearer {key}"}
            )
            reply: dict[str, Any] = handler(event, LambdaContext())
            return reply

        for name in CLAIM_ARTIFACTS:
            assert fetch(name)["statusCode"] == 200, name
        for name in set(MOTION_ARTIFACTS) - set(CLAIM_ARTIFACTS):
            reply = fetch(name)
            assert reply["statusCode"] == 404 and "score_trajectory.csv" in reply["body"]
