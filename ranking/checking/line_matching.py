"""Which lines of two texts are the same lines, in order: the gate's prose comparison
(:mod:`ranking.checking.prose`) reports every line left unmatched as changed.

``difflib.SequenceMatcher`` finds a longest matching run again and again, which is quadratic (or
worse) in lines that repeat, and a pull request controls memory-after's prose. This matching
takes time near linear in the lines, whatever they hold (docs/markdown-memory.md, "The gate
holds the whole file"):

1. the lines the two texts share at their start and at their end match, the longer run first;
2. what is left between them is matched exactly (a longest common subsequence) when it is
   small, :data:`EXACT_CELLS` pairs of lines at most;
3. when it is larger, a line found exactly once in each text is an anchor, and the longest run
   of anchors in the same order in both matches (patience diffing: a longest increasing
   subsequence, ``n log n``); between two anchors, the stretch's shared start and end match,
   and a stretch still larger than :data:`EXACT_CELLS` pairs is left unmatched: all of it is
   reported.

Every match is of equal lines, in order, so a line reported unchanged is unchanged; a stretch
may be reported as changed in more lines than a shortest edit would name, never fewer.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Hashable, Sequence

__all__ = ["EXACT_CELLS", "matching_lines"]

EXACT_CELLS = 4096
"""The most pairs of lines (``len(a) * len(b)``) a stretch without anchors is matched exactly in:
each costs a step, and the stretches' costs add up to at most ``sqrt(EXACT_CELLS)`` a line."""


def matching_lines(a: Sequence[Hashable], b: Sequence[Hashable]) -> list[tuple[int, int]]:
    """The pairs ``(i, j)`` with ``a[i] == b[j]`` that are matched, increasing in both (module docstring)."""
    pairs: list[tuple[int, int]] = []
    _match(a, b, 0, len(a), 0, len(b), pairs, anchored=False)
    return pairs


def _match(
    a: Sequence[Hashable],
    b: Sequence[Hashable],
    a0: int,
    a1: int,
    b0: int,
    b1: int,
    pairs: list[tuple[int, int]],
    *,
    anchored: bool,
) -> None:
    """Match ``a[a0:a1]`` against ``b[b0:b1]``, appending to ``pairs`` in order."""
    # 1.: the longer of the shared start and the shared end first, so a run of lines added
    # beside a line that repeats (an empty line) is reported where difflib, which matches the
    # longest run first, reports it.
    if _shared(a, b, a0, a1, b0, b1, 1) >= _shared(a, b, a0, a1, b0, b1, -1):
        head = _shared(a, b, a0, a1, b0, b1, 1)
        tail = _shared(a, b, a0 + head, a1, b0 + head, b1, -1)
    else:
        tail = _shared(a, b, a0, a1, b0, b1, -1)
        head = _shared(a, b, a0, a1 - tail, b0, b1 - tail, 1)
    pairs.extend((a0 + k, b0 + k) for k in range(head))
    a0, b0, a1, b1 = a0 + head, b0 + head, a1 - tail, b1 - tail
    if a0 < a1 and b0 < b1:
        if (a1 - a0) * (b1 - b0) <= EXACT_CELLS:  # 2.
            pairs.extend(_exact(a, b, a0, a1, b0, b1))
        elif not anchored and (anchors := _anchors(a, b, a0, a1, b0, b1)):  # 3.
            for i, j in anchors:
                _match(a, b, a0, i, b0, j, pairs, anchored=True)
                pairs.append((i, j))
                a0, b0 = i + 1, j + 1
            _match(a, b, a0, a1, b0, b1, pairs, anchored=True)
    pairs.extend((a1 + k, b1 + k) for k in range(tail))


def _shared(a: Sequence[Hashable], b: Sequence[Hashable], a0: int, a1: int, b0: int, b1: int, step: int) -> int:
    """How many lines the stretches share at their start (``step`` 1) or at their end (-1)."""
    n, most = 0, min(a1 - a0, b1 - b0)
    if step == 1:
        while n < most and a[a0 + n] == b[b0 + n]:
            n += 1
    else:
        while n < most and a[a1 - n - 1] == b[b1 - n - 1]:
            n += 1
    return n


def _anchors(a: Sequence[Hashable], b: Sequence[Hashable], a0: int, a1: int, b0: int, b1: int) -> list[tuple[int, int]]:
    """The longest run of lines found once in each stretch, in the same order in both (step 3)."""
    in_a, in_b = Counter(a[a0:a1]), Counter(b[b0:b1])
    where_b = {b[j]: j for j in range(b0, b1) if in_b[b[j]] == 1 and in_a[b[j]] == 1}
    candidates = [(i, where_b[a[i]]) for i in range(a0, a1) if a[i] in where_b]
    # Patience: the longest subsequence of candidates increasing in j (they increase in i).
    tops: list[int] = []  # tops[k]: the smallest j ending an increasing run of k + 1
    ends: list[int] = []  # ends[k]: the candidate that ends it
    before: list[int] = []  # the candidate before each one in its run
    for n, (_, j) in enumerate(candidates):
        k = bisect.bisect_left(tops, j)
        before.append(ends[k - 1] if k else -1)
        if k == len(tops):
            tops.append(j)
            ends.append(n)
        else:
            tops[k], ends[k] = j, n
    run, n = [], ends[-1] if ends else -1
    while n >= 0:
        run.append(candidates[n])
        n = before[n]
    return run[::-1]


def _exact(a: Sequence[Hashable], b: Sequence[Hashable], a0: int, a1: int, b0: int, b1: int) -> list[tuple[int, int]]:
    """A longest common subsequence of two small stretches (step 2), by the textbook table."""
    rows, cols = a1 - a0, b1 - b0
    table = [[0] * (cols + 1) for _ in range(rows + 1)]
    for i in range(rows - 1, -1, -1):
        for j in range(cols - 1, -1, -1):
            if a[a0 + i] == b[b0 + j]:
                table[i][j] = table[i + 1][j + 1] + 1
            else:
                table[i][j] = max(table[i + 1][j], table[i][j + 1])
    out, i, j = [], 0, 0
    while i < rows and j < cols:
        if a[a0 + i] == b[b0 + j]:
            out.append((a0 + i, b0 + j))
            i, j = i + 1, j + 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return out
