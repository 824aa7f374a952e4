"""The win rate's 95% interval in ``musical stats``: Wilson's, with the undecided deals
counted as lost for the lower bound and as won for the upper (as the Solvitaire study does), in
the text, in ``--json`` and with ``--from``."""

from __future__ import annotations

import json
import math

import pytest

from musical_cli.cli import main
from musical_cli.stats import StatsReport, wilson


def test_wilson_known_values():
    # Textbook values (Newcombe 1998, table I; Wilson 1927): 0 of 10, 5 of 10, 1 of 29.
    assert wilson(0, 10) == (0.0, pytest.approx(0.2775, abs=5e-5))
    assert wilson(5, 10) == (pytest.approx(0.2366, abs=5e-5), pytest.approx(0.7634, abs=5e-5))
    assert wilson(1, 29) == (pytest.approx(0.0061, abs=5e-5), pytest.approx(0.1718, abs=5e-5))
    assert wilson(10, 10) == (pytest.approx(0.7225, abs=5e-5), 1.0)
    assert wilson(0, 0) == (0.0, 1.0)  # nothing measured: nothing known


def test_wilson_formula_and_symmetry():
    z = 1.959963984540054
    for k, n in ((1, 3), (7, 40), (1726, 2000), (9999, 10000)):
        low, high = wilson(k, n)
        p = k / n
        # The bounds are the roots of (p - q)^2 = z^2 q (1 - q) / n.
        for q in (low, high):
            assert math.isclose((p - q) ** 2, z * z * q * (1 - q) / n, rel_tol=1e-9, abs_tol=1e-15)
        assert low < p < high
        # k successes are n - k failures: the interval mirrors.
        other = wilson(n - k, n)
        assert other[0] == pytest.approx(1 - high) and other[1] == pytest.approx(1 - low)


def report(won: int, lost: int, unknown: int) -> StatsReport:
    rep = StatsReport(deals=won + lost + unknown, game="musical", options={"redeals": "2"})
    rep.won, rep.lost, rep.unknown = won, lost, unknown
    return rep


def test_unknown_counts_as_lost_then_as_won():
    rep = report(5, 3, 2)
    assert rep.interval == (wilson(5, 10)[0], wilson(7, 10)[1])
    assert rep.to_json()["interval"] == [round(wilson(5, 10)[0], 4), round(wilson(7, 10)[1], 4)]
    # Deciding the undecided deals can only narrow it.
    for won in (5, 6, 7):
        low, high = report(won, 10 - won, 0).interval
        assert rep.interval[0] <= low and high <= rep.interval[1]


def stats(capsys, *args: str) -> tuple[int, str]:
    status = main(["stats", *args])
    return status, capsys.readouterr().out


def test_text_json_and_from(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    # Deals 1-3 at no redeal: all lost (known; tests/test_stats.py), so the interval is Wilson's for 0 of 3.
    status, text = stats(capsys, "1-3", "--redeals", "0", "--workers", "1", "--out", str(out))
    assert status == 0
    assert "win rate 95% interval 0.0% to 56.1% (Wilson; unknown deals counted as lost, then as won)" in " ".join(text.split())
    status, text = stats(capsys, "1-3", "--redeals", "0", "--workers", "1", "--json")
    assert json.loads(text)["interval"] == [0.0, 0.5615]
    # --from reports the same interval from the file alone.
    status, text = stats(capsys, "--from", str(out), "--json")
    assert status == 0 and json.loads(text)["interval"] == [0.0, 0.5615]
    status, text = stats(capsys, "--from", str(out))
    assert "interval 0.0% to 56.1%" in text


def test_from_with_undecided_deals(tmp_path, capsys):
    # A file with one deal won, one lost and two undecided: lower bound Wilson(1, 4), upper Wilson(3, 4).
    out = tmp_path / "r.jsonl"
    key = {"game": "calculation", "rules": {"piles": 4, "bases": True}, "player": "solver"}
    rows = [("won", ["d"]), ("lost", None), ("unknown", None), ("unknown", None)]
    with out.open("w") as f:
        for seed, (result, moves) in enumerate(rows, 1):
            # The shape of a results line (tests/test_stats_files.py): moves only when won.
            record = {**key, "seed": seed, "result": result, **({"moves": moves} if moves else {}),
                      "nodes": 1, "seconds": 0.1, "greedy": None}
            f.write(json.dumps(record) + "\n")
    status, text = stats(capsys, "--from", str(out), "--json")
    assert status == 0
    data = json.loads(text)
    assert (data["won"], data["lost"], data["unknown"]) == (1, 1, 2)
    assert data["interval"] == [round(wilson(1, 4)[0], 4), round(wilson(3, 4)[1], 4)]
