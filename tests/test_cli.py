"""The command line: --version, --help, ``musical deal`` (text and JSON), ``verify`` and ``replay``
with their exit statuses, and a closed pipe."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from lines import winning_line

from musical_cli import __version__
from musical_cli.cli import main
from musical_cli.deals import DealNumber
from musical_cli.game import Outcome
from musical_cli.games.musical.rules import MUSICAL, MusicalRules
from musical_cli.notation import parse_move
from musical_cli.transcript import GameRecord, format_transcript

CODE = re.compile(r"[A2-9TJQK][CDHS]")
SUITS = set("♣♦♥♠")
DEAL1_STOCK = ("JD 2D 9H JC 5D 7H 7C 5H KD KC 9S 5S AD QC KH 3H 2S KS 9D QD JS AS AH 3C 4C 5C TS QH 4H "
               "7S 3S TD TH 8H JH 7D 6D 8S 8D QS 6C TC 6S 9C").split()


def run(*args: str, input: str | bytes | None = None, env: dict | None = None, **kw) -> subprocess.CompletedProcess:
    full_env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "MUSICAL_DEBUG")}
    full_env.update(env or {})
    text = not isinstance(input, bytes)
    return subprocess.run([sys.executable, "-m", "musical_cli", *args], input=input, capture_output=True,
                          text=text, encoding="utf-8" if text else None, env=full_env, timeout=60, **kw)


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    """main() in this process; (status, stdout, stderr)."""
    try:
        status = main(list(argv))
    except SystemExit as e:  # argparse's own exits
        status = e.code
    out, err = capsys.readouterr()
    return status, out, err


TRANSCRIPT = "format: musical-transcript 1\ngame: musical\ndeal: {deal}\nredeals: 2\n"


@pytest.fixture
def transcripts(tmp_path):
    """Files for verify and replay: won, not won, illegal at line 6."""
    files = {}
    won = GameRecord(MUSICAL, DealNumber(2), MusicalRules(), tuple(parse_move(m) for m in winning_line(2)))
    files["won"] = tmp_path / "won.txt"
    files["won"].write_text(format_transcript(won, Outcome.WON), encoding="utf-8")
    files["not-won"] = tmp_path / "not-won.txt"
    files["not-won"].write_text(TRANSCRIPT.format(deal=1) + "d\nd\nd\nw f3\n", encoding="utf-8")
    files["illegal"] = tmp_path / "illegal.txt"
    files["illegal"].write_text(TRANSCRIPT.format(deal=1) + "d\nw f2\nd\n", encoding="utf-8")
    return files


# --- --version and --help --------------------------------------------------------------------


def test_version():
    p = run("--version")
    assert p.returncode == 0
    assert p.stdout.strip() == f"musical {__version__}"
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", __version__)


def test_help():
    p = run("--help")
    assert p.returncode == 0
    assert p.stdout.startswith("usage: musical")
    for word in ("--seed", "--redeals", "--ascii", "--version", "deal", "verify", "replay"):
        assert word in p.stdout
    assert p.stderr == ""


@pytest.mark.parametrize("sub", ["deal", "verify", "replay"])
def test_subcommand_help(capsys, sub):
    status, out, _ = cli(capsys, sub, "--help")
    assert status == 0
    assert out.startswith(f"usage: musical {sub}")


def test_unknown_subcommand_is_2(capsys):
    status, out, err = cli(capsys, "dael", "1")
    assert status == 2
    assert "usage" in err


# --- musical deal ----------------------------------------------------------------------------


def test_deal_text(capsys):
    status, out, err = cli(capsys, "deal", "1")
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "Musical deal 1"
    assert lines[1].split() == ["signs", "A♣", "2♥", "3♦", "4♠"]
    assert lines[2].split() == ["foundations", "2♣", "4♦", "6♥", "8♣"]
    # the stock's 44 cards are broken between cards to 80 columns, continued under the first
    assert max(len(text) for text in lines) < 80
    assert lines[3].startswith("  stock        J♦ ") and lines[4].startswith(" " * 15 + "A♠ ")
    stock = " ".join(lines[3:6]).split()
    assert stock[0] == "stock" and lines[6].startswith("difficulty: ")
    assert stock[1:11] == "J♦ 2♦ 9♥ J♣ 5♦ 7♥ 7♣ 5♥ K♦ K♣".split()
    assert stock[-4:] == "6♣ 10♣ 6♠ 9♣".split()
    assert len(stock) == 45
    assert out.endswith("\n")
    assert "\x1b" not in out


def test_deal_ascii(capsys):
    status, out, _ = cli(capsys, "deal", "--ascii", "1", "31999", "32000")
    assert status == 0
    assert not SUITS & set(out)
    assert "stock        JD 2D 9H" in out
    assert out.count("Musical deal") == 3
    # DEALS.md: the two deals across the generator boundary.
    assert "signs        AH 2D 3S 4D" in out and "foundations  2C 4S 6C 8C" in out and "JD JH AD QH KH" in out
    assert "signs        AS 2D 3S 4S" in out and "foundations  2H 4C 6C 8H" in out and "7S 4D JS 8D 6D" in out


def test_deal_json_range(capsys):
    status, out, err = cli(capsys, "deal", "--json", "1", "2-3")
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert len(lines) == 3
    records = [json.loads(line) for line in lines]
    assert [r["seed"] for r in records] == [1, 2, 3]
    for r in records:
        assert isinstance(r, dict)
        assert set(r) >= {"game", "seed", "signs", "foundations", "stock"}
        assert r["game"] == "musical"
        assert type(r["seed"]) is int
        assert len(r["signs"]) == 4 and len(r["foundations"]) == 4 and len(r["stock"]) == 44
        cards = r["signs"] + r["foundations"] + r["stock"]
        assert all(isinstance(c, str) and CODE.fullmatch(c) for c in cards)
        assert len(set(cards)) == 52
        assert [c[0] for c in r["signs"]] == ["A", "2", "3", "4"]
        assert [c[0] for c in r["foundations"]] == ["2", "4", "6", "8"]
    assert records[0]["signs"] == ["AC", "2H", "3D", "4S"]
    assert records[0]["foundations"] == ["2C", "4D", "6H", "8C"]
    assert records[0]["stock"] == DEAL1_STOCK
    assert records[0]["stock"][0] == "JD"


def test_deal_json_is_one_object_per_line_on_a_pipe():
    p = run("deal", "--json", "1", "2-3")
    assert p.returncode == 0
    lines = p.stdout.split("\n")
    assert lines[-1] == "" and len(lines) == 4
    assert all(line.startswith("{") and line.endswith("}") for line in lines[:-1])


def test_deal_json_ms(capsys):
    status, out, _ = cli(capsys, "deal", "--json", "ms5")
    assert status == 0
    (line,) = out.splitlines()
    r = json.loads(line)
    assert r["seed"] == "ms5"
    assert r["game"] == "musical"
    assert len(r["stock"]) == 44
    # ms5 is the Microsoft generator forced: the same shuffle as plain deal 5.
    status, out5, _ = cli(capsys, "deal", "--json", "5")
    r5 = json.loads(out5)
    assert (r["signs"], r["foundations"], r["stock"]) == (r5["signs"], r5["foundations"], r5["stock"])


def test_deal_json_big_number(capsys):
    status, out, _ = cli(capsys, "deal", "--json", str(2**64))
    assert status == 0
    assert json.loads(out)["seed"] == 2**64


@pytest.mark.parametrize("bad", ["0", "-1", "abc", "", "3-1", "1-x", "ms0"])
def test_deal_bad_numbers_are_2(bad):
    p = run("deal", bad)
    assert p.returncode == 2, (bad, p.stdout)
    assert "Traceback" not in p.stderr
    assert p.stderr.strip()


def test_deal_on_an_ascii_only_stream_falls_back_to_letters():
    p = run("deal", "1", env={"PYTHONIOENCODING": "ascii"})
    assert p.returncode == 0, p.stderr
    assert "stock        JD 2D" in p.stdout


def test_deal_1_to_2000_into_head_has_no_traceback():
    cmd = f"{sys.executable} -m musical_cli deal 1-2000 | head -1"
    p = subprocess.run(cmd, shell=True, capture_output=True, text=True, encoding="utf-8", timeout=60)
    assert p.returncode == 0
    assert p.stdout == "Musical deal 1\n"
    assert p.stderr == ""


def test_deal_json_into_head_has_no_traceback():
    cmd = f"{sys.executable} -m musical_cli deal --json 1-5000 | head -c 10"
    p = subprocess.run(cmd, shell=True, capture_output=True, text=True, encoding="utf-8", timeout=60)
    assert p.stderr == ""


# --- musical verify ------------------------------------------------------------------------


def test_verify_won_is_0(capsys, transcripts):
    status, out, err = cli(capsys, "verify", str(transcripts["won"]))
    assert status == 0 and err == ""
    assert out.strip() == f"won in {len(winning_line(2))} moves"


def test_verify_not_won_is_1(capsys, transcripts):
    status, out, err = cli(capsys, "verify", str(transcripts["not-won"]))
    assert status == 1 and err == ""
    assert "not won" in out and "4 moves" in out


def test_verify_illegal_is_3(capsys, transcripts):
    status, out, err = cli(capsys, "verify", str(transcripts["illegal"]))
    assert status == 3
    assert out == ""
    assert str(transcripts["illegal"]) in err and "line 6" in err and "foundation 2 needs a 6" in err


def test_verify_missing_file_is_2(capsys, tmp_path):
    status, out, err = cli(capsys, "verify", str(tmp_path / "nowhere.txt"))
    assert status == 2
    assert "nowhere.txt" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(("kind", "status", "result"), [
    ("won", 0, "won"), ("not-won", 1, "not-won"), ("illegal", 3, "invalid"),
])
def test_verify_json(capsys, transcripts, kind, status, result):
    got, out, err = cli(capsys, "verify", "--json", str(transcripts[kind]))
    assert got == status
    record = json.loads(out)
    assert set(record) == {"result", "moves", "line", "reason"}
    assert record["result"] == result
    assert isinstance(record["moves"], int) and isinstance(record["reason"], str) and record["reason"]
    if kind == "illegal":
        assert record["line"] == 6
        assert record["moves"] == 1
    else:
        assert record["line"] is None
        assert record["moves"] == {"won": len(winning_line(2)), "not-won": 4}[kind]


def test_verify_a_file_that_is_not_a_transcript_is_3(capsys, tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("shopping: milk\n")
    status, _, err = cli(capsys, "verify", str(path))
    assert status == 3
    assert "line 1" in err


def test_verify_a_wrong_result_line_is_3(capsys, tmp_path):
    path = tmp_path / "claims.txt"
    path.write_text(TRANSCRIPT.format(deal=1) + "d\nresult: won\n")
    status, _, err = cli(capsys, "verify", "--json", str(path))
    assert status == 3


def test_verify_stdin(transcripts):
    for kind, status in (("won", 0), ("not-won", 1), ("illegal", 3)):
        p = run("verify", "-", input=transcripts[kind].read_text(encoding="utf-8"))
        assert p.returncode == status, (kind, p.stderr)
        assert "Traceback" not in p.stderr
    p = run("verify", "--json", "-", input=transcripts["illegal"].read_text(encoding="utf-8"))
    assert p.returncode == 3
    assert json.loads(p.stdout)["line"] == 6


def test_verify_stdin_not_utf8_is_3():
    p = run("verify", "-", input=b"format: musical-transcript 1\n\xff\n")
    assert p.returncode == 3
    assert b"Traceback" not in p.stderr


# --- musical replay ------------------------------------------------------------------------


def test_replay_prints_every_layout_and_the_verdict(capsys, transcripts):
    status, out, err = cli(capsys, "replay", str(transcripts["not-won"]))
    assert status == 1, err
    assert out.count("signs") == 5  # the opening and after each of the 4 moves
    assert re.findall(r"^(\d+)\. (.+)$", out, re.M) == [("1", "d"), ("2", "d"), ("3", "d"), ("4", "w f3")]
    assert out.rstrip().splitlines()[-1] == "legal, not won: after 4 moves, 43 cards still to build"
    assert "\x1b" not in out


def test_replay_won_is_0(capsys, transcripts):
    status, out, _ = cli(capsys, "replay", str(transcripts["won"]))
    assert status == 0
    assert out.count("signs") == len(winning_line(2)) + 1
    assert out.rstrip().splitlines()[-1].startswith("won in")


def test_replay_illegal_is_3(capsys, transcripts):
    status, out, err = cli(capsys, "replay", str(transcripts["illegal"]))
    assert status == 3
    assert "line 6" in err


def test_replay_missing_file_is_2(capsys, tmp_path):
    status, _, err = cli(capsys, "replay", str(tmp_path / "gone.txt"))
    assert status == 2


def test_replay_on_a_pipe_does_not_wait_for_keys(transcripts):
    p = run("replay", str(transcripts["not-won"]), input="")
    assert p.returncode == 1
    assert p.stdout.count("signs") == 5
    assert "Enter" not in p.stdout
    assert "\x1b" not in p.stdout


def test_replay_stdin(transcripts):
    p = run("replay", "--ascii", "-", input=transcripts["not-won"].read_text(encoding="utf-8"))
    assert p.returncode == 1
    assert p.stdout.count("signs") == 5
    assert not SUITS & set(p.stdout)


def test_verify_a_directory_is_2(capsys, tmp_path):
    status, _, err = cli(capsys, "verify", str(tmp_path))
    assert status == 2
    assert "Traceback" not in err


def test_verify_a_comment_is_one_line_whatever_it_holds(capsys, tmp_path):
    path = tmp_path / "commented.txt"
    path.write_text(TRANSCRIPT.format(deal=1) + "# note\u2028more note\nd\n", encoding="utf-8")
    status, out, err = cli(capsys, "verify", str(path))
    assert status == 1, err


def test_deal_json_1_to_1000_is_quick():
    import time

    start = time.perf_counter()
    p = run("deal", "--json", "1-1000")
    elapsed = time.perf_counter() - start
    assert p.returncode == 0
    lines = p.stdout.splitlines()
    assert len(lines) == 1000
    assert [json.loads(line)["seed"] for line in lines] == list(range(1, 1001))
    assert elapsed < 10  # "a few seconds" at most


def test_deal_names_the_variant(capsys, monkeypatch):
    import musical_cli.advice

    # the title is what is asserted here; the rating (seconds of search for these deals) is test_advice's
    monkeypatch.setattr(musical_cli.advice, "rating", lambda game, rules, state: None)
    status, out, _ = cli(capsys, "deal", "1", "--game", "calculation", "--piles", "3")
    assert status == 0 and out.startswith("Calculation with 3 piles, deal 1\n")
    status, out, _ = cli(capsys, "deal", "2", "--game", "crazy-quilt", "--reserves")
    assert status == 0 and out.startswith("Persian Rug deal 2\n")
