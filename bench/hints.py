"""The shell's ``hint`` command timed on positions from real games, and :func:`say`, a figure's
line wrapped to the terminal: shared by bench/solver.py (Musical) and bench/crazy_quilt.py.
Prints figures, asserts nothing."""

from __future__ import annotations

import shutil
import statistics
import textwrap
import time
from collections.abc import Iterable

from musical_cli.language import Session, lookup
from musical_cli.stats import percentile


def say(text: str, indent: int = 4) -> None:
    """Print one figure's line wrapped between words to one column less than the terminal's width
    (79 when the output is not a terminal), its later lines indented under it: the lists of deals
    and stock counts run to hundreds of characters."""
    width = shutil.get_terminal_size((80, 24)).columns - 1
    print(textwrap.fill(text, width=width, initial_indent=" " * indent,
                        subsequent_indent=" " * (indent + 4), break_on_hyphens=False))


def hint_answer(said: str) -> str:
    """What kind of answer the shell's ``hint`` gave."""
    if said.startswith("hint:"):
        return "a move"
    if "cannot be won even from its start" in said:
        return "lost from the start"
    here = "lost here" if "no win is possible" in said else "undecided here"
    if "'undo" in said:
        return f"{here}, undo N" + (", maybe not the least" if "a later one may be too" in said else "")
    return f"{here}, no position to undo to"


def _ask(session: Session) -> tuple[float, float, str]:
    c0, w0 = time.process_time(), time.perf_counter()
    reply = lookup("hint").handler(session, [])
    said = "".join(text for _, text in reply.out).replace("\n", " ")
    return time.process_time() - c0, time.perf_counter() - w0, said


def hint_command_figures(sessions: Iterable[tuple[str, Session]], again: bool = False) -> None:
    """``sessions``: (a label, a game in hand) pairs. The CPU and wall time of one ``hint`` in
    each, the kinds of answer, the ones that took a CPU second or more; with ``again``, the
    second ``hint`` where the first left its answer open (the long search)."""
    cpu, wall, slow = [], [], []
    answers: dict[str, int] = {}
    again_cpu: list[float] = []
    again_answers: dict[str, int] = {}
    for label, session in sessions:
        c, w, said = _ask(session)
        cpu.append(c)
        wall.append(w)
        kind = hint_answer(said)
        answers[kind] = answers.get(kind, 0) + 1
        if c >= 1.0 or w >= 1.0:
            slow.append(f"{label}: {c:.2f} CPU s, {w:.2f} s: {said[:90]}")
        if again and "'hint' again to search longer" in said:
            c, _, said = _ask(session)
            again_cpu.append(c)
            kind = hint_answer(said)
            again_answers[kind] = again_answers.get(kind, 0) + 1
    say(f"the shell's hint command ({len(cpu)} positions): CPU median {statistics.median(cpu):.3f} s, "
        f"90th percentile {percentile(cpu, 0.9):.3f} s, worst {max(cpu):.3f} s "
        f"(wall median {statistics.median(wall):.3f} s, worst {max(wall):.3f} s); "
        f"{sum(t >= 1.0 for t in cpu)} took a CPU second or more")
    say(f"answers: {answers}")
    for line in slow:
        say(f"slow: {line}")
    if again_cpu:
        say(f"'hint' again where the first left its answer open ({len(again_cpu)}): CPU median "
            f"{statistics.median(again_cpu):.3f} s, worst {max(again_cpu):.3f} s; answers: {again_answers}")
