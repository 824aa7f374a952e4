"""The player's record: resume, history, stats, record (a feature of the command registry,
:mod:`.commands`). The Recorder (:mod:`.record`) does the writing; these commands read."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from .commands import CommandError, Reply, Session, command, confirm_abandon, count_arg, moves_text
from .record import (
    HISTORY_LIMIT,
    STATS_LEGEND,
    Recorder,
    RecordError,
    figures_card,
    figures_table,
    history_table,
    parse_ref,
    recorded_text,
    variant_name,
    when,
)
from .render import plural
from .store import Store, StoreError, duration, figures, held_elsewhere, rules_key, summarise


@command("resume", "resume [@ID]", "go on with the unfinished game of the record (or game ID)",
         details="Resumes the game played last that is still in play and that no other running shell "
                 "holds, with its undo and redo history. The shell offers it at start.",
         arguments=lambda session: _resumable(session))
def _resume(session: Session, args: list[str]) -> Reply:
    return resume_command(session, args)


def _resumable(session: Session) -> list[str]:
    return resumable(session)


@command("history", "history [N]", "the last N games of the record (10 by default), newest first")
def _history(session: Session, args: list[str]) -> Reply:
    return history_command(session, args)


@command("stats", "stats [all]", "your figures: this game's rule set, or every game with 'stats all'",
         details="Played, won, lost and abandoned games, the win rate, the winning streak now and at its "
                 "longest, the longest losing streak, the fewest moves and the fastest win, the active "
                 "time (a pause counts up to a minute). Only your own games count: a game the solver "
                 "finished ('solve play'), one loaded with its moves, or one played with the coach on is "
                 "counted apart; hints and 'auto' do not change whose game it is. 'musical history "
                 "--stats' prints the same table.",
         arguments=("all",))
def _stats(session: Session, args: list[str]) -> Reply:
    return stats_command(session, args)


@command("record", "record", "this game's figures in the record: moves, undos, hints, time")
def _record(session: Session, args: list[str]) -> Reply:
    return record_command(session, args)




def load_recorded(session: Session, ref: str):
    """The shell's and batch mode's ``load @ID``: the game as it stands, as a new game."""
    from .transcript import TranscriptError, read_transcript

    recorder = recorder_of(session)
    store = recorder.store if recorder is not None else None
    try:
        text = recorded_text(ref, store)
        record = read_transcript(text).record
    except TranscriptError as e:
        raise CommandError(f"{ref}: {e.text(session.ascii)}") from None
    except (StoreError, ValueError) as e:
        raise CommandError(str(e)) from None
    # Moves that came with the game are not the player's: it counts apart (a replay when finished).
    confirm_abandon(session, f"loading game {ref}")
    session.start(record.game, record.deal, record.rules, record.moves, how="loaded" if record.moves else "player")
    return Reply(show=True).say(f"loaded deal {record.deal}, {moves_text(session)}, "
                                f"from game {ref} of the record")




def recorder_of(session: Session) -> Recorder | None:
    """The session's record, where it keeps one (the interactive shell's)."""
    listener = session.listener
    return listener if isinstance(listener, Recorder) else None


def _recorder(session: Session) -> Recorder:
    recorder = recorder_of(session)
    if recorder is None:
        raise CommandError("only the interactive shell keeps the record")
    return recorder


def resumable(session: Session) -> list[str]:
    """What 'resume' completes to: the games that could be resumed, as @ID."""
    recorder = recorder_of(session)
    if recorder is None or recorder.store is None:
        return []
    try:
        return [f"@{g.id}" for g in recorder.store.unfinished(exclude=recorder.game_id)]
    except StoreError:
        return []  # completion says nothing; the command itself will say what is wrong


def resume_command(session: Session, args: list[str]):
    recorder = _recorder(session)
    if len(args) > 1:
        raise CommandError("usage: resume [@ID]")
    if recorder.store is None:
        raise CommandError(f"nothing to resume: {recorder.why_not}")
    try:
        if args:
            try:
                game_id = parse_ref(args[0])
            except ValueError as e:
                raise CommandError(str(e)) from None
            row = recorder.store.game(game_id)
            if row is None or (row.moves == 0 and row.plies <= 0):
                raise CommandError(f"there is no game @{game_id} in the record ('history' lists them)")
            if game_id == recorder.game_id:
                raise CommandError(f"game @{game_id} is the game in hand")
            if row.result != "in play":
                raise CommandError(f"game @{game_id} is {row.result}; 'load @{game_id}' plays it again as a new game")
            if held_elsewhere(row.owner):
                raise CommandError(f"game @{game_id} is being played in another musical shell")
        else:
            row = recorder.unfinished()
            if row is None:
                raise CommandError("no unfinished game is waiting in the record ('history' lists the games)")
        confirm_abandon(session, f"resuming game @{row.id}")
        return Reply(show=True).say(recorder.resume(row))
    except RecordError as e:
        raise CommandError(str(e)) from None
    except StoreError as e:
        recorder._fail(e)
        raise CommandError(str(e)) from None


@contextmanager
def _reading(recorder: Recorder) -> Iterator[Store]:
    """The record to read from: the shell's own or, where it cannot be written (a read-only
    disk: the shell plays unrecorded), the file opened only to read it. CommandError says why
    there is none."""
    own = recorder.store
    try:
        if own is None:
            if recorder.refused:
                raise CommandError(f"no record: {recorder.why_not}")
            try:
                store = Store.open_for_reading()
            except (StoreError, OSError) as e:
                raise CommandError(f"no record: {recorder.why_not or e}") from None
        else:
            store = own
        try:
            yield store
        finally:
            if own is None:
                store.close()
    except StoreError as e:
        if own is not None:
            recorder._fail(e)
        raise CommandError(str(e)) from None


def history_command(session: Session, args: list[str]):
    if [a.lower() for a in args] == ["--stats"]:  # as on the command line: the figures
        return stats_command(session, ["all"])
    recorder = _recorder(session)
    limit = count_arg(args, "history [N]") if args else HISTORY_LIMIT
    with _reading(recorder) as store:
        rows = store.games(limit=limit)
        total = store.count()
    reply = Reply()
    if not rows:
        return reply.say("no game recorded yet")
    for text in history_table(rows, session.width):
        reply.say(text)
    if total > len(rows):
        reply.say(f"({total - len(rows)} older: 'history {total}' or 'musical history' lists them)", "dim")
    return reply


def record_command(session: Session, args: list[str]):
    if args:
        raise CommandError(f"record takes no argument; got {' '.join(args)!r}")
    recorder = _recorder(session)
    if recorder.store is None:
        return Reply().say(f"this game is not recorded: {recorder.why_not}")
    if recorder.game_id is None:
        return Reply().say("this game is recorded from its first move")
    try:
        row = recorder.store.game(recorder.game_id)
    except StoreError as e:
        recorder._fail(e)
        raise CommandError(str(e)) from None
    if row is None:
        raise CommandError(f"game @{recorder.game_id} is no longer in the record")
    verdict = {"won": "the solver has proven the deal can be won",
               "lost": "the solver has proven the deal cannot be won"}.get(row.deal_verdict or "",
                                                                           "the solver has not decided the deal")
    if row.rating is not None:  # the game is over: its rating may be told
        verdict += f" (rated {row.rating})"
    # 'solve play' plays to the end; a game it played that is not won (undone since, then played
    # on or left) is the solver's in part only.
    solver = "finished by the solver" if row.result == "won" else "played in part by the solver"
    by = {"player": "played by you", "solver": f"{solver} ('solve play'): not counted as yours",
          "loaded": "loaded with its moves: not counted as yours", None: "played by you"}[row.how]
    if row.coach:
        by += ", with the coach on: counted apart"
    # The game in hand, named as players know it; its moves as the status line counts them
    # (the record keeps the cards a game turns up by itself too).
    return (Reply()
            .say(f"game @{row.id}: {session.title}, deal {row.deal}, started {when(row.started)}")
            .say(f"  {row.result}; {plural(session.move_count, 'move')}, {plural(row.undos, 'undo')}, "
                 f"{plural(row.hints, 'hint')}, {duration(row.seconds)} of active time")
            .say(f"  {by}")
            .say(f"  {verdict}"))


def stats_command(session: Session, args: list[str]):
    words = [a.lower() for a in args]
    if words not in ([], ["all"]):
        raise CommandError("usage: stats [all]")
    recorder = _recorder(session)
    with _reading(recorder) as store:
        rows = store.games()
    reply = Reply()
    if words:
        if not rows:
            return reply.say("no game recorded yet")
        for text in figures_table(rows, session.width):
            reply.say(text)
        return reply.say(STATS_LEGEND, "dim")
    options = session.game.rules_options(session.rules)
    mine = [g for g in rows if g.game == session.game.name and g.rules == options]
    name = variant_name(session.game.name, options)
    [f] = figures(mine) or [summarise(session.game.name, options, [])]
    for text in figures_card(f, name):
        reply.say(text)
    others = len({(g.game, rules_key(g.rules)) for g in rows}) - bool(mine)
    if others > 0:
        reply.say(f"'stats all' shows every game ({plural(others, 'other rule set')} recorded).", "dim")
    return reply


