"""Reading a rendered prompt's debate as a test does: the anonymized rounds every call of a claim debate
shares in its opening (`<debate round="n">`, each position's `<argument position="A|B">`)."""

from __future__ import annotations

import re

_ROUND = re.compile(r'<debate round="(\d+)">\n(.*?)\n</debate>', re.DOTALL)
_POSITION = re.compile(r'<argument position="([AB])">\n(.*?)\n</argument>', re.DOTALL)


def debate_positions(text: str) -> list[tuple[str, str, str]]:
    """(label, round, body) of each argument in the debate `text` shows, in order."""
    return [
        (label, round, body)
        for round, debate in _ROUND.findall(text)
        for label, body in _POSITION.findall(debate)
    ]
