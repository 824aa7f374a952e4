"""Start-up: with a deal asked for, the shell opens the player's record only
once its first prompt is on the screen, and records from the first move all the same. (The time
itself is bench/startup.py's to measure: no test asserts a wall-clock time.)"""

from __future__ import annotations

import pytest
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from terminal import PROMPT  # (without pexpect, the module is skipped)

from musical_cli.deals import DealNumber
from musical_cli.games.musical.rules import MUSICAL
from musical_cli.language import Session
from musical_cli.record import Recorder
from musical_cli.render import plain
from musical_cli.shell import Shell
from musical_cli.store import Store


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("MUSICAL_NO_RECORD", raising=False)
    return tmp_path / "data" / "musical" / "musical.sqlite3"


def test_the_record_is_opened_once_the_first_prompt_is_drawn_and_records_every_move(data):
    session = Session(MUSICAL, DealNumber(1), None, interactive=True)
    seen: list[str] = []
    printed: list = []

    def open_recorder() -> Recorder:
        # the prompt is up (running, drawn once), and nothing has been typed yet
        seen.append(f"running={shell.prompt.app.is_running} drawn={shell.prompt.app.render_counter} "
                    f"moves={len(session.moves)}")
        return Recorder.open(offer=False)

    with create_pipe_input() as pipe:
        shell = Shell(session, input=pipe, output=DummyOutput(), history=InMemoryHistory(),
                      open_recorder=open_recorder)
        shell.print = printed.append
        assert shell.recorder is None and not data.exists()  # nothing opened before the prompt
        pipe.send_text("d\rd\rquit\r")
        assert shell.run() == 0
    assert seen == ["running=True drawn=1 moves=0"]
    store = Store.open(data, create=False, readonly=True)
    try:
        assert [g.moves for g in store.games()] == [2]
    finally:
        store.close()


def test_its_warning_is_still_shown(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    (tmp_path / "data" / "musical").mkdir(parents=True)
    (tmp_path / "data" / "musical" / "musical.sqlite3").write_text("not a database")
    session = Session(MUSICAL, DealNumber(1), None, interactive=True)
    printed: list = []
    with create_pipe_input() as pipe:
        shell = Shell(session, input=pipe, output=DummyOutput(), history=InMemoryHistory(),
                      open_recorder=lambda: Recorder.open(offer=False))
        shell.print = printed.append
        pipe.send_text("quit\r")
        assert shell.run() == 0
    text = "".join(plain(f) for f in printed)
    assert "is damaged" in text and "a new record is started" in text


def test_the_program_with_a_seed_records_its_game(terminal, tmp_path):
    term = terminal("--seed", "5")
    term.expect(PROMPT)
    term.sendline("d")
    term.expect(PROMPT)
    term.sendline("quit")
    assert term.finish() == 0
    store = Store.open(tmp_path / "data" / "musical" / "musical.sqlite3", create=False, readonly=True)
    try:
        [game] = store.games()
        assert (game.deal, game.moves, game.result) == ("5", 1, "in play")
    finally:
        store.close()
