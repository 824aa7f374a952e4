"""Every subcommand's --help opens with one sentence of what it does, and a usage error in a
subcommand shows that subcommand's usage."""

from __future__ import annotations

import pytest

from musical_cli.cli import SUBCOMMANDS, main


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        status = main(list(argv))
    except SystemExit as e:  # argparse's own exits (--help)
        status = e.code
    out, err = capsys.readouterr()
    return status, out, err


def opening(help_text: str) -> str:
    """The paragraph after the usage lines, as one line."""
    paragraphs = help_text.split("\n\n")
    assert paragraphs[0].startswith("usage: ")
    return " ".join(paragraphs[1].split())


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_help_opens_with_one_sentence(capsys, name):
    status, out, _ = cli(capsys, name, "--help")
    assert status == 0
    text = opening(out)
    assert text[0].isupper() and text.endswith("."), text
    assert ". " not in text, f"more than one sentence: {text}"
    assert not text.startswith(("positional", "options")), text


def test_stats_help_says_what_it_does_and_what_a_range_is(capsys):
    _, out, _ = cli(capsys, "stats", "--help")
    text = opening(out)
    assert "deals" in text and "won" in text
    assert "A-B the deals A to B" in text
    assert "N is deal N" in text
    assert "musical history --stats" in text  # the player's own figures are elsewhere: say where


@pytest.mark.parametrize("argv, name, message", [
    (["stats"], "stats", "which deals? give N or A-B (or --from FILE to report on a results file); your own "
                         "games' figures are 'musical history --stats'"),
    (["stats", "--from", "x.jsonl", "1"], "stats", "--from reports on the files"),
    (["solve"], "solve", "which deal?"),
    (["solve", "--wrap", "--seed", "1"], "solve", "--wrap is a rule option of crazy-quilt"),
    (["deal", "--piles", "3", "1"], "deal", "--piles is a rule option of calculation"),
    (["history", "--stats", "--export", "x"], "history", "give --stats or --export"),
])
def test_a_subcommands_usage_error_shows_its_own_usage(capsys, argv, name, message):
    status, out, err = cli(capsys, *argv)
    assert status == 2 and out == ""
    assert err.startswith(f"usage: musical {name} "), err
    assert "musical {deal,verify" not in err
    assert f"musical {name}: error: {message}" in err


def test_the_top_level_usage_error_still_shows_the_top_level_usage(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    status, _, err = cli(capsys, "--resume")
    assert status == 2
    assert err.startswith("usage: musical [options]")
    assert "musical: error: --resume is for the interactive shell" in err
