"""Write the English word frequencies the pool-relevance check weighs words by
(claimcourt/debate/data/english_zipf.tsv.gz), from the `wordfreq` package's English list.

Run: python -m claimcourt.bench.word_frequencies [--check]

Needs the `wordlist` extra (pip install -e '.[wordlist]': wordfreq 3.1.1); nothing at run time does,
which reads only the written file. Every word of wordfreq's large English list that the check's tokenizer
would produce as one token (claimcourt.reasoning.stance.tokens: lower-case letters, one apostrophe
suffix; a token with a digit is a figure, weighed alike whatever it is) and that is at least as common
as MIN_ZIPF, with its Zipf frequency (log10 of its frequency per billion words) to one decimal. A line
per frequency, most frequent first: `<zipf>\\t<word> <word> …`, words sorted. Deterministic: --check
compares a fresh write with the shipped file and fails if they differ.

Rarer words are left out (the file would be ten times the size): the check reads a word it does not
find as rarer than all of these, which is what it is (debate/relevance.py, ABSENT_ZIPF), and measured no
different for its purpose (bench/pool_relevance.py: the same AUC with the list cut at Zipf 1, 2, 2.5 or 3).

Data: wordfreq (Robyn Speer), code Apache-2.0, word lists CC BY-SA 4.0; see debate/data/README.md.
"""

from __future__ import annotations

import argparse
import gzip
import math
import re
import sys
from pathlib import Path

from claimcourt.debate.relevance import FREQUENCIES_FILE

MIN_ZIPF = 3.0  # once per million words
# One token of the check's tokenizer, without digits: a figure weighs the same whatever it is.
_ONE_TOKEN = re.compile(r"[a-z]+(?:'[a-z]+)?")


def frequency_lines() -> str:
    from wordfreq import get_frequency_dict  # the wordlist extra: only this script needs it

    by_zipf: dict[float, list[str]] = {}
    for word, frequency in get_frequency_dict("en", wordlist="large").items():
        zipf = round(math.log10(frequency) + 9, 1)
        if zipf >= MIN_ZIPF and _ONE_TOKEN.fullmatch(word):
            by_zipf.setdefault(zipf, []).append(word)
    return "".join(f"{z}\t{' '.join(sorted(words))}\n" for z, words in sorted(by_zipf.items(), reverse=True))


def written(text: str) -> bytes:
    return gzip.compress(text.encode(), compresslevel=9, mtime=0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--check", action="store_true", help="fail if the shipped file differs from a fresh write"
    )
    args = parser.parse_args(argv)
    data = written(frequency_lines())
    path = Path(FREQUENCIES_FILE)
    if args.check:
        same = path.read_bytes() == data
        print(f"{path}: {'up to date' if same else 'differs from a fresh write'}")
        return 0 if same else 1
    path.write_bytes(data)
    words = sum(len(line.split("\t")[1].split()) for line in gzip.decompress(data).decode().splitlines())
    print(f"wrote {path}: {words} words, {len(data):,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
