"""The review of the judge's samples (adjudication/review.py): adaptive early stop, and when to
re-deliberate."""

from __future__ import annotations

from claimcourt.adjudication.review import Review, first_batch, review


def decide(scores: dict[int, int | None], total: int = 4, contrarian: tuple[str, ...] = ("E9",)) -> Review:
    return review(scores, total, contrarian_ids=list(contrarian), threshold=20, enabled=True)


def test_the_first_batch_is_two_samples_or_the_only_one() -> None:
    assert first_batch(4) == [0, 1] and first_batch(1) == [0]


def test_two_first_samples_that_agree_stop_the_sampling() -> None:
    r = decide({0: 61, 1: 64})
    assert (r.more_samples, r.reconsider, r.spread) == ([], None, 3)


def test_two_first_samples_that_disagree_ask_the_rest() -> None:
    assert decide({0: 60, 1: 75}).more_samples == [2, 3]


def test_a_wide_spread_with_contrarian_evidence_asks_once_more_with_the_scores() -> None:
    r = decide({0: 80, 1: 40, 2: 70, 3: None})
    assert r.more_samples == [] and r.spread == 40
    assert r.reconsider is not None
    assert (r.reconsider.scores, r.reconsider.spread, r.reconsider.contrarian_ids) == (
        [80, 40, 70],
        40,
        ["E9"],
    )


def test_no_re_deliberation_without_contrarian_evidence_with_a_small_spread_or_when_off() -> None:
    assert decide({0: 80, 1: 40, 2: 70, 3: 30}, contrarian=()).reconsider is None
    assert decide({0: 60, 1: 75, 2: 70, 3: 66}).reconsider is None  # 15 points: within 20
    off = review({0: 80, 1: 40, 2: 70, 3: 30}, 4, contrarian_ids=["E9"], threshold=20, enabled=False)
    assert off.reconsider is None and off.reason == "re-deliberation is off"


def test_one_judgement_has_nothing_to_compare() -> None:
    r = decide({0: 55}, total=1)
    assert (r.more_samples, r.reconsider, r.spread) == ([], None, None)


def test_the_judge_samples_setting_overrides_the_effort() -> None:
    from claimcourt.settings import Settings

    assert (Settings().judgements("standard"), Settings().judgements("high")) == (1, 4)
    assert Settings(judge_samples=1).judgements("standard") == 2
    assert Settings(judge_samples=0).judgements("high") == 1


def test_contrarian_evidence_is_what_only_a_contrarian_search_found_once_each() -> None:
    from claimcourt.artifacts import contrarian_evidence_ids

    def doc(contrarian: bool, *ids: str) -> dict[str, object]:
        return {"contrarian": contrarian, "items": [{"id": i} for i in ids]}

    retrievals = {
        "evidence/r01/sc1": doc(False, "E1", "E2"),
        "evidence/r02/sc1": doc(True, "E2", "E3", "E3"),
        "evidence/r03/sc1": doc(True, "E4", "E3"),
    }
    # E2 was found by an ordinary search first: the pool's, not evidence against the lean
    assert contrarian_evidence_ids(retrievals) == ["E3", "E4"]
