"""People's words in the shell and the record, in other languages than English: the yes of a
question and the pager's stop in the keyboard's own language, numbers in sentences with the
language's marks, the record's tables within 80 columns in Russian, and what programs read
(the stored results, JSON) English in every language."""

from __future__ import annotations

import io
import json

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from musical_cli import i18n, render
from musical_cli.deals import DealNumber
from musical_cli.games import GAMES
from musical_cli.language import Session, execute
from musical_cli.record import figures, figures_card, figures_table, history_json, history_table, result_text
from musical_cli.render import line, plain, wrap
from musical_cli.shell import Shell
from musical_cli.store import Store

MUSICAL, QUILT = GAMES["musical"], GAMES["crazy-quilt"]


@pytest.fixture(autouse=True)
def english_after():
    yield
    i18n.use("en")


def plain_shell(typed: str) -> Shell:
    s = Session(MUSICAL, DealNumber(1), MUSICAL.rules_from_options({}), interactive=True)
    return Shell(s, input=io.StringIO(typed), output=io.StringIO(), plain=True)


@pytest.mark.parametrize(("answer", "yes"), [
    ("y", True), ("yes", True), ("Y", True), (" YES ", True), ("д", True), ("да", True), ("Да", True),
    ("", False), ("n", False), ("no", False), ("нет", False), ("yess", False), ("дда", False),
])
def test_yes_is_y_or_yes_or_the_russian_da(answer, yes):
    assert plain_shell(answer + "\n").confirm("The game is in play. End it? [y/N]") is yes


class Screen(DummyOutput):
    def get_size(self) -> Size:
        return Size(rows=24, columns=80)


@pytest.mark.parametrize("stop", ["q", "й", "Й"])
def test_the_pager_stops_at_q_on_a_latin_or_a_russian_keyboard(stop):
    s = Session(QUILT, DealNumber(1), QUILT.rules_from_options({}), interactive=True)
    rules = plain(wrap(line(plain(execute(s, "rules").out).rstrip("\n")), 80)).splitlines()
    printed: list[str] = []
    with create_pipe_input() as pipe:
        shell = Shell(s, input=pipe, output=Screen(), history=InMemoryHistory())
        shell.paging = True
        real = shell.print
        shell.print = lambda fragments: (printed.append(plain(wrap(fragments, 80))), real(fragments))
        pipe.send_text("rules\r" + stop + "quit\r")
        assert shell.run() == 0
    assert len(rules) > 23 and not any(rules[23] in p for p in printed)  # stopped after a screenful


def test_numbers_in_sentences_take_the_languages_marks(monkeypatch):
    assert render.number(1234567.25, ",.1f") == "1,234,567.2"
    assert render.search_progress(1234567, 2.25).startswith("searching: 1,234,567 positions, 2.2 s")
    monkeypatch.setattr(render, "pgettext", lambda context, message: "12 345,5" if context == "number format"
                        else message)
    assert render.number(1234567.25, ",.1f") == "1 234 567,2"
    assert render.number(0.5, ".1f") == "0,5" and render.number(42) == "42"
    assert "1 234 567 positions, 2,2 s" in render.search_progress(1234567, 2.25)
    # a translation that is no number at all leaves the English marks
    monkeypatch.setattr(render, "pgettext", lambda context, message: "?")
    assert render.number(1234.5, ",.1f") == "1,234.5"


VARIANTS = [("musical", {"redeals": "1"}), ("musical", {"redeals": "2"}), ("calculation", {"piles": "3", "bases": "yes"}),
            ("calculation", {"piles": "3", "bases": "no"}), ("crazy-quilt", {"redeals": "3", "wrap": "yes",
                                                                              "reserves": "no"}),
            ("crazy-quilt", {"redeals": "2", "wrap": "no", "reserves": "no"}),
            ("crazy-quilt", {"redeals": "1", "wrap": "no", "reserves": "yes"})]
PLAYED = [("won", "player", False), ("abandoned", "solver", True), ("lost", "loaded", False), ("in play", "player", True)]


@pytest.fixture
def rows(tmp_path):
    """Every variant, each played every way: by the player, the solver and from a file, with the
    coach and without, won, lost, abandoned and in play; deal numbers of nine digits (those of
    tests/test_record.py: at 72 columns a longer one leaves the names too little room)."""
    store = Store.open(tmp_path / "record.sqlite3")
    for game, rules in VARIANTS:
        for k, (result, how, coach) in enumerate(PLAYED):
            game_id = store.new_game(game, rules, str(928750120 + k), how=how, coach=coach,
                                     difficulty="hard" if k == 0 else None)
            store.save(game_id, keep=0, append=[("d", 0)] * (k + 1), moves=k + 1, result=result, seconds=3725 + k)
    rows = store.games()
    store.close()
    return rows


def russian() -> None:
    if i18n.use("ru") != "ru" or i18n.pgettext("history", "date") == "date":
        pytest.skip("no Russian catalog with the record's words compiled")


def test_the_record_tables_fit_80_columns_in_russian(rows):
    russian()
    for width in (80, 100):  # (the terminals the product promises; narrower ones wrap)
        for lines in (figures_table(rows, width), history_table(rows, width)):
            assert max(map(len, lines)) < width, (width, lines)
    for lines in (figures_table(rows, 80), history_table(rows, 80)):
        assert "~" not in "\n".join(lines), lines  # no word cut at 80 columns
        assert lines[0].split()[0] != "game" and lines[0].split()[0] != "id"
    assert result_text("won") != "won"
    card = figures_card(figures(rows)[0], "X")
    assert card[0].startswith("X: ") and all(line.strip() for line in card)


def test_what_programs_read_stays_english_in_russian(rows):
    russian()
    games = [json.loads(text) for text in history_json(rows)]
    assert {g["result"] for g in games} == {"won", "abandoned", "lost", "in play"}
    assert {g["played_by"] for g in games} == {"player", "solver", "loaded"}
