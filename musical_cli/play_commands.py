"""The moves and the game in hand: d, w, redeal, undo, redo, moves, show, new, restart, save,
load, rules (a feature of the command registry, :mod:`.commands`)."""

from __future__ import annotations

import textwrap
import time
from pathlib import Path
from typing import Any

from . import files
from .commands import (
    CommandError,
    Reply,
    Session,
    after_move,
    command,
    confirm_abandon,
    count_arg,
    moves_text,
    no_args,
    play_text,
)
from .deals import DealNumber, random_deal_number
from .moves import REDEAL, Move, Transfer
from .render import plural
from .transcript import MAX_BYTES, TranscriptError, format_transcript, read_bytes


@command("d", "d", "deal: turn the stock's top card onto the waste", aliases=("deal",), plays="d",
         details="Allowed while the stock has cards, when the rules allow it ('rules' says when). "
                 "In a game where the turned card must be placed at once, the shell turns the "
                 "next card up by itself, as PySolFC does.")
def _deal(session: Session, args: list[str]) -> Reply:
    no_args(args, "d")
    return play_text(session, "d")


def move_sources(session: Session) -> list[str]:
    """The places a card can be moved from now (``w``, ``p2``, ``q34``), in the legal moves' order."""
    sources = (str(m.source) for m in session.game.legal_moves(session.state) if isinstance(m, Transfer))
    return list(dict.fromkeys(sources))


def move_targets(session: Session, source: str) -> list[str]:
    """Where the card at ``source`` can go now."""
    return [str(m.target) for m in session.game.legal_moves(session.state)
            if isinstance(m, Transfer) and str(m.source) == source and m.target is not None]


def _targets(session: Session) -> list[str]:
    """After ``w``: where the waste card can go now; when it can go nowhere, every foundation
    and pile, so that the move typed is refused with its reason."""
    legal = move_targets(session, "w")
    if legal:
        return legal
    state = session.state
    return ([f"f{i}" for i in range(1, len(getattr(state, "foundations", ())) + 1)]
            + [f"p{j}" for j in range(1, len(getattr(state, "piles", ())) + 1)])


@command("w", "w [TARGET]", "play the waste card: to foundation N (w fN), or where the game allows",
         details="'w f2', 'wf2', 'w2' and 'w 2' are the same move. 'w' alone plays the card to the "
                 "one foundation that takes it; when several or none do, it says what would work. "
                 "The other targets are the game's ('help' lists its moves).",
         arguments=_targets, plays="w")
def _waste(session: Session, args: list[str]) -> Reply:
    return play_text(session, " ".join(["w", *args]))


@command("redeal", "redeal", "turn the waste over to become the stock again",
         details="Allowed when the stock is empty and the waste is not, as often as the game's "
                 "rules allow (the rule option --redeals); some games have no redeal.",
         plays="redeal")
def _redeal(session: Session, args: list[str]) -> Reply:
    no_args(args, "redeal")
    return play_text(session, "redeal")


@command("undo", "undo [N]", "take back the last move (or the last N)", aliases=("u",))
def _undo(session: Session, args: list[str]) -> Reply:
    n = count_arg(args, "undo [N]")
    if not session.steps:
        raise CommandError("nothing to undo: no move has been made")
    done = session.undo(n)
    return Reply(show=True).say(f"undid {plural(done, 'move')}")


@command("redo", "redo [N]", "make again the last move taken back (or the last N)")
def _redo(session: Session, args: list[str]) -> Reply:
    n = count_arg(args, "redo [N]")
    if not session.undone:
        raise CommandError("nothing to redo")
    done = session.redo(n)
    return after_move(session, Reply().say(f"redid {plural(done, 'move')}"))


@command("moves", "moves", "list the legal moves now")
def _moves(session: Session, args: list[str]) -> Reply:
    no_args(args, "moves")
    legal = session.game.legal_moves(session.state)
    if not legal:
        return Reply().say("no move is legal")
    return Reply().say("legal: " + ", ".join(str(m) for m in legal))


@command("show", "show", "show the layout again", aliases=("s", "layout"))
def _show(session: Session, args: list[str]) -> Reply:
    no_args(args, "show")
    return Reply(show=True, asked=True)


@command("new", "new [N|--winnable|--difficulty D]", "start a new deal: deal N, or a random one",
         details="The deal number is shown at once, so that the game can be replayed with --seed N. "
                 "'new --winnable' deals a random deal the solver proves winnable; 'new "
                 "--difficulty hard' (easy, medium, hard, lost) a random deal of that rating.",
         arguments=("--winnable", "--difficulty"))
def _new(session: Session, args: list[str]) -> Reply:
    words = [a.lower() for a in args]
    if "--winnable" in words and "--difficulty" in words:
        raise CommandError("new --winnable or new --difficulty D, not both: a deal of any rating but "
                           "'lost' is winnable")
    if len(args) == 2 and args[0].lower() == "--difficulty":
        from . import advice

        wanted = args[1].lower()
        why = advice.no_rated_deal(session.game, session.rules, wanted)
        if why:
            raise CommandError(why)
        # asked before the search: a game in play is ended only with the player's word
        confirm_abandon(session, f"a new {wanted} deal")
        deal = advice.deal_rated(session.game, session.rules, wanted, random_deal_number)
        if deal is None:
            raise CommandError(advice.no_deal_rated(session.game, session.rules, wanted))
        session.start(session.game, deal, session.rules)
        session.mark(difficulty=wanted, chosen=wanted)
        return Reply(show=True).say(f"deal {deal} (rated {wanted})")
    if len(args) > 1:
        raise CommandError("usage: new [N|--winnable|--difficulty D]")
    if args and args[0].lower() == "--winnable":
        from . import advice

        confirm_abandon(session, "a new winnable deal")
        deal = advice.winnable_deal(session.game, session.rules, random_deal_number)
        if deal is None:
            raise CommandError(advice.no_winnable_deal(session.game, session.rules))
        session.start(session.game, deal, session.rules)
        session.mark(chosen="winnable")
        return Reply(show=True).say(f"deal {deal} (dealt winnable: the solver proved it)")
    deal = DealNumber.parse(args[0]) if args else random_deal_number()
    confirm_abandon(session, f"a new deal ({deal})")
    session.start(session.game, deal, session.rules)
    return Reply(show=True).say(f"deal {deal}")


@command("restart", "restart", "start this deal again from the beginning")
def _restart(session: Session, args: list[str]) -> Reply:
    no_args(args, "restart")
    confirm_abandon(session, "restarting it")
    session.start(session.game, session.deal, session.rules)
    return Reply(show=True).say(f"deal {session.deal} restarted")


def move_lines(state: Any, moves: tuple[Move, ...], width: int = 80) -> list[str]:
    """A line of moves for a player to follow: one line a pass where the game has passes (a new
    line after each redeal, labelled with the pass it plays), each wrapped between moves, never
    inside one ('w' at the end of a screen line and 'f4' at the start of the next), to fit
    ``width`` columns."""
    groups: list[list[str]] = [[]]
    for move in moves:
        groups[-1].append(str(move))
        if move == REDEAL:
            groups.append([])
    if not groups[-1]:
        groups.pop()
    first = getattr(state, "pass_number", None)
    width = max(width, 30) - 1  # a line that fills the last column makes some terminals wrap
    out: list[str] = []
    for n, group in enumerate(groups):
        label = f"pass {first + n}: " if first is not None else ""
        lead = "  " + label
        current = lead
        for word in group:
            if current.strip() and len(current) + 1 + len(word) > width:
                out.append(current)
                current = "  " + " " * len(label)
            current += ("" if current.endswith(" ") else " ") + word
        out.append(current)
    return out


def default_save_path(session: Session) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return files.data_dir() / f"{session.game.name}-deal-{session.deal}-{stamp}.txt"


@command("save", "save [FILE]", "save this game as a transcript",
         details="Without FILE, to the data directory ($XDG_DATA_HOME/musical), named after the deal. "
                 "Undone moves are not saved.",
         arguments="path")
def _save(session: Session, args: list[str]) -> Reply:
    if len(args) > 1:
        raise CommandError("usage: save [FILE] (quote nothing; a file name has no spaces here)")
    given = args[0] if args else None
    text = format_transcript(session.record, session.outcome())
    try:
        path = files.expand_user(given) if given is not None else None
    except OSError as e:
        raise CommandError(f"cannot save to {given}: {e}") from None
    if path is None:
        try:
            path = default_save_path(session)
        except files.NoHomeError as e:
            raise CommandError(f"cannot save: {e}; name a file: save FILE") from None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        files.atomic_write(path, text)
    except OSError as e:
        raise CommandError(f"cannot save to {path}: {e.strerror or e}") from None
    # The file holds every move, the cards a game turned up by itself too (as 'd' lines, which a
    # transcript needs); the player is told their own count, as the record counts them.
    return Reply().say(f"saved {moves_text(session)} to {path}")


@command("load", "load FILE|@ID", "replace this game with the one in a transcript",
         details="'load @ID' loads game ID of the record ('history' lists them) as a new game.",
         arguments="path")
def _load(session: Session, args: list[str]) -> Reply:
    if len(args) != 1:
        raise CommandError("usage: load FILE|@ID")
    if args[0].startswith("@"):
        from .record_commands import load_recorded

        return load_recorded(session, args[0])
    try:
        path = files.expand_user(args[0])
    except OSError as e:
        raise CommandError(f"cannot read {args[0]}: {e}") from None
    try:
        data = files.read_limited(path, MAX_BYTES)
    except OSError as e:
        raise CommandError(f"cannot read {path}: {e.strerror or e}") from None
    try:
        transcript = read_bytes(data)
    except TranscriptError as e:
        raise CommandError(f"{path}: {e.text(session.ascii)}") from None
    record = transcript.record
    confirm_abandon(session, f"loading {path}")
    # Moves that came with the game are not the player's: it counts apart (a replay when finished).
    session.start(record.game, record.deal, record.rules, record.moves, how="loaded" if record.moves else "player")
    return Reply(show=True).say(f"loaded deal {record.deal}, {moves_text(session)}, from {path}")



@command("rules", "rules", "the rules of the game in hand",
         details="The same text as the game's part of the manual, musical-games(7).")
def _rules(session: Session, args: list[str]) -> Reply:
    no_args(args, "rules")
    reply = Reply()
    # rules.txt holds a paragraph a line, as the man page does; a terminal wants them wrapped.
    width = min(session.width, 80) - 1
    for n, paragraph in enumerate(p for p in session.game.rules_text.split("\n\n") if p.strip()):
        if n:
            reply.say("")
        reply.say(textwrap.fill(" ".join(paragraph.split()), width, break_on_hyphens=False, break_long_words=False))
    return reply


