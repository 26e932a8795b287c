"""Taking citation markers out of a text (the closing round's rule, a motion's allowance): what is left
must still read, model-written sentences as much as the offline reasoner's templates."""

from __future__ import annotations

import re

import pytest

from claimcourt.debate.citations import drop_citations

# (text as written, ids it may keep, text after the others are taken out)
CASES = [
    # a marker that only supports a statement goes, its punctuation tidied
    (
        "Sea level rose 3.7 mm a year between 2006 and 2018 [E1].",
        set(),
        "Sea level rose 3.7 mm a year between 2006 and 2018.",
    ),
    (
        "Sea level rose 3.7 mm a year ([E1]).",
        set(),
        "Sea level rose 3.7 mm a year.",
    ),
    (
        "Sea level rose 3.7 mm a year (see [E1], [E3]).",
        set(),
        "Sea level rose 3.7 mm a year.",
    ),
    (
        "Sea level rose 3.7 mm a year (see [E1], [E3]).",
        {"E3"},
        "Sea level rose 3.7 mm a year (see [E3]).",
    ),
    (
        "Several records (e.g. [E1], [E2]) show it. Others differ [E3].",
        {"E3"},
        "Several records show it. Others differ [E3].",
    ),
    (
        "The rise is real (T2, Sea level rise [E1]).",
        set(),
        "The rise is real (T2, Sea level rise).",
    ),
    (
        "Sea levels rose 20 cm (as reported by [E1]) over the century.",
        set(),
        "Sea levels rose 20 cm over the century.",
    ),
    (
        "The IPCC's AR6 [E1] finds 3.7 mm a year.",
        set(),
        "The IPCC's AR6 finds 3.7 mm a year.",
    ),
    (
        "Tide gauges show a rise [E1], [E2], and satellites confirm it [E3].",
        {"E2"},
        "Tide gauges show a rise [E2], and satellites confirm it.",
    ),
    # an attribution goes with its marker
    (
        "According to [E1], glaciers have lost mass every year since 1988.",
        set(),
        "Glaciers have lost mass every year since 1988.",
    ),
    (
        "Glaciers, according to [E1], have lost mass every year since 1988.",
        set(),
        "Glaciers have lost mass every year since 1988.",
    ),
    (
        "Per [E1], the ice sheet lost 270 Gt a year.",
        set(),
        "The ice sheet lost 270 Gt a year.",
    ),
    (
        "Data from [E1] show a 20 cm rise.",
        set(),
        "Data show a 20 cm rise.",
    ),
    # a sentence or clause built on the marker goes with it
    (
        "Sea levels rose [E2]. The other side will point to [E1], which bears on it less directly.",
        {"E2"},
        "Sea levels rose [E2].",
    ),
    (
        "Glaciers retreat [E2]. Also [E1], [E3].",
        {"E2"},
        "Glaciers retreat [E2].",
    ),
    (
        "Also [E1], [E3]. Glaciers retreat [E2].",
        {"E2"},
        "Glaciers retreat [E2].",
    ),
    (
        "Glaciers retreat [E2]. Also [E1], [E3].",
        {"E2", "E3"},
        "Glaciers retreat [E2]. Also [E3].",
    ),
    (
        "As [E1] shows, glaciers are retreating; the trend is accelerating [E2].",
        {"E2"},
        "Glaciers are retreating; the trend is accelerating [E2].",
    ),
    (
        "[E1] reports that the melt rate doubled. Satellite altimetry agrees [E2].",
        {"E2"},
        "Satellite altimetry agrees [E2].",
    ),
    (
        "Glaciers are retreating, which [E1] documents in detail.",
        set(),
        "Glaciers are retreating.",
    ),
    (
        "The argument just made rests on [E1], [E3]; the passages cited here bear on the sub-claim "
        "more directly.",
        set(),
        "The passages cited here bear on the sub-claim more directly.",
    ),
    (
        "The argument just made rests on [E1], [E3]; the passages cited here bear on it more directly.",
        {"E3"},
        "The argument just made rests on [E3]; the passages cited here bear on it more directly.",
    ),
    (
        "No passage in the evidence pool supports this side on sc1, and [E1] cuts the other way.",
        set(),
        "No passage in the evidence pool supports this side on sc1.",
    ),
    (
        "The strongest source here is [E1]. Melt doubled since 1990 [E2].",
        {"E2"},
        "Melt doubled since 1990 [E2].",
    ),
    (
        "Ice extent fell [E1], and fell again [E2] as reported [E404].",
        {"E1"},
        "Ice extent fell [E1], and fell again as reported.",
    ),
    # lines stay; a line emptied entirely goes
    (
        "Point one [E1].\nThe other side will point to [E2].\nPoint three.",
        {"E1"},
        "Point one [E1].\nPoint three.",
    ),
    # an abbreviation is no sentence's end
    (
        "Records, e.g. tide gauges [E1], agree. Others point to [E2].",
        set(),
        "Records, e.g. tide gauges, agree.",
    ),
]


@pytest.mark.parametrize(("text", "keep", "expected"), CASES)
def test_text_with_citations_taken_out_still_reads(text: str, keep: set[str], expected: str) -> None:
    assert drop_citations(text, keep) == expected


# The offline reasoner's templates (reasoning/offline.py argue), as its closing round wrote them.
OFFLINE = (
    '[Eb3d624f9] (T2, Effects of global warming): "Global warming may also make some impacts worse via sea '
    'level rise." Also [E5bee274e], [E3160ebe0]. The other side will point to [Eb52f2bd6], which bears on '
    "it less directly."
)


def test_the_offline_closing_rounds_sentences_still_read() -> None:
    assert drop_citations(OFFLINE, {"E5bee274e", "E3160ebe0"}) == (
        '(T2, Effects of global warming): "Global warming may also make some impacts worse via sea level '
        'rise." Also [E5bee274e], [E3160ebe0].'
    )
    assert drop_citations(OFFLINE, set()) == (
        '(T2, Effects of global warming): "Global warming may also make some impacts worse via sea level '
        'rise."'
    )
    assert drop_citations(OFFLINE, {"Eb3d624f9", "E5bee274e", "E3160ebe0", "Eb52f2bd6"}) == OFFLINE


def test_sentences_with_nothing_taken_out_are_left_exactly_as_written() -> None:
    text = "Odd  spacing , kept as is [E2].  And this (see [E1]) goes."
    assert drop_citations(text, {"E2"}) == "Odd  spacing , kept as is [E2].  And this goes."
    assert drop_citations(text, {"E1", "E2"}) == text


def test_another_marker_pattern_is_honoured() -> None:
    # a motion's statements take any bracketed id
    ref = re.compile(r"\[([^\[\]\s]{1,40})\]")
    assert drop_citations("Again [E000000], and [E000004].", {"E000000"}, ref) == "Again [E000000]."
    assert drop_citations("We rely on [X9]. It holds [E000000].", {"E000000"}, ref) == "It holds [E000000]."
