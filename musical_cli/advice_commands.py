"""Advice: hint, solve and auto (a feature of the command registry, :mod:`.commands`)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from . import advice
from .commands import FOLLOW_UPS, CommandError, Reply, Session, after_move, command, no_args
from .game import Game, Outcome
from .hand import Played, Position
from .moves import Move
from .play_commands import move_lines
from .render import plural, review_progress

# The searches and their budgets live in the advice layer (musical_cli.advice); these are its
# commands. The budgets are read from there when a command runs (the tests shorten them).
_AGAIN = "type 'hint' again to search longer"


@command("hint", "hint", "the next move of a winning line from here",
         details="Where a player has seen the whole stock after the first pass, the solver sees it "
                 "too; when no win is left it says how many moves to undo to get back to one. "
                 "It answers within about a second; when that leaves the answer open it says so, "
                 "and 'hint' typed again before any move searches longer: up to 5 s for the "
                 "position, then up to 30 s for how far to undo (Ctrl-C stops it). "
                 "In a game whose stock stays hidden (Calculation), the hint never reads the "
                 "stock: it is the advice of a player who knows only the cards seen, not a "
                 "winning line, and it can lead to a loss. Once its stock is empty, every card has "
                 "been seen, and the hint is the solver's, as in the other games. "
                 "Once such a game is lost, every card "
                 "has been seen: 'hint' then says, in hindsight, how far to undo to get back to "
                 "a position that could still be won with the stock known.")
def _hint_cmd(session: Session, args: list[str]) -> Reply:
    reply = _hint(session, args)
    if _hindsight(session):
        return Reply().say("In hindsight (the game is lost, so every card has been seen):", "hint").extend(reply)
    return reply


def _hindsight(session: Session) -> bool:
    """A lost game whose hints are blind: every card has now been seen, so the solver may say
    where a win was still possible."""
    return (session.game.hint_is_blind and "solver" in session.game.players
            and session.outcome() is Outcome.LOST)


def _all_seen(session: Session) -> bool:
    """A game whose hints are blind, with its stock empty: every card has been seen, so the
    solver reads nothing the player has not, and its hint is exact (the end of a game is
    searched in milliseconds)."""
    stock = getattr(session.state, "stock", None)
    return stock is not None and not stock and "solver" in session.game.players


def _hint(session: Session, args: list[str]) -> Reply:
    no_args(args, "hint")
    _need_player(session)
    session.notify("hint")
    if session.outcome() is Outcome.WON:
        return Reply().say("the game is won; nothing to hint")
    if session.game.hint_is_blind and not _hindsight(session) and not _all_seen(session):
        from .solver import blind_hint

        move = blind_hint(session.game, session.state)
        if move is None:
            return Reply().say("no move is left: 'undo' to go back", "bad")
        return Reply().say(f"hint: {move}  (from what you can see; the stock stays hidden)", "hint")
    here = session.state
    memory = session.memory
    kept = memory.kept
    # The long search's answer, while nothing new is known here ('solve' may have decided it).
    if kept is not None and kept[0] is here and memory.solved.get(here) is kept[1]:
        return Reply(list(kept[2]))
    longer = memory.open is here
    memory.open = None
    if longer:
        reply = _long_hint(session)
        memory.kept = (here, memory.solved.get(here), list(reply.out))
        return reply
    began = time.monotonic()
    solution = advice.decide(session, here, advice.HINT_BUDGET)
    if solution.result == "won":
        return _hint_move(solution)
    lost = solution.result == "lost"
    undo = advice.undo_budget(time.monotonic() - began)
    back, exact = advice.undo_to_winnable(session, undo, probe=undo, start_probe=0.0, lost_here=lost)
    # An exact count means the position after it is proven lost, and this one follows it in the
    # game, so this one is lost too, though its own search ran out of time.
    lost = lost or (exact and back is not None and back > 0)
    if back is None:  # the start itself is lost, so is every later position
        return Reply().say("no win is possible from here.", "bad").say(_LOST_FROM_START)
    memory.open = here  # cleared below when the answer is whole
    if lost:
        reply = Reply().say("no win is possible from here.", "bad")
        if back < 0:
            guess = _undo_guess(session)
            if guess is None:
                return reply.say(f"no earlier position was proven winnable yet: {_AGAIN}.", "bad")
            return reply.say(f"'undo {guess}' may get back to a position that can still be won (a guess: "
                             f"none was proven winnable yet, and the one it gets back to was not proven "
                             f"lost); or {_AGAIN}.", "hint")
        if exact:
            memory.open = None
            return reply.say(f"'undo {back}' gets back to a position that can still be won.", "hint")
        return reply.say(f"'undo {back}' gets back to a position that can still be won, and a later "
                         f"one may be too: {_AGAIN}.", "hint")
    reply = _guess(session, advice.HINT_BUDGET)
    if back < 0 or not session.moves:
        return reply.say(f"{_AGAIN}.")
    return reply.say(f"'undo {back}' gets back to a position that can still be won; or {_AGAIN}.", "hint")


def _long_hint(session: Session) -> Reply:
    """``hint`` asked again where a quick one left its answer open: the long budgets."""
    solution = advice.decide(session, session.state, advice.LONG_HINT_BUDGET)
    if solution.result == "won":
        return _hint_move(solution)
    lost = solution.result == "lost"
    # The start may take most of a lost position's long budget (deal 409's start is proven lost
    # in about 6 s), only half of an undecided one's (Crazy Quilt's starts are often its hardest).
    back, exact = advice.undo_to_winnable(session, advice.SOLVE_BUDGET if lost else advice.LONG_HINT_BUDGET,
                                    settle=advice.LONG_HINT_BUDGET, start_probe=advice.LONG_HINT_BUDGET if lost else 0.0,
                                    lost_here=lost)
    lost = lost or (exact and back is not None and back > 0)  # as in _hint
    if back is None:
        return Reply().say("no win is possible from here.", "bad").say(_LOST_FROM_START)
    if lost:
        reply = Reply().say("no win is possible from here.", "bad")
        if back < 0:
            return reply.say(f"the solver found no earlier position winnable within {advice.SOLVE_BUDGET:g} s: "
                             "undo by hand, or 'new'.", "bad")
        later = "" if exact else " (a later one may be too: some positions stayed undecided)"
        return reply.say(f"'undo {back}' gets back to a position that can still be won{later}.", "hint")
    reply = _guess(session, advice.LONG_HINT_BUDGET).say(
        f"('solve' searches up to {advice.SOLVE_BUDGET:g} s.)")
    if not session.moves:
        return reply
    if back < 0:
        return reply.say(f"No earlier position was proven winnable within {advice.LONG_HINT_BUDGET:g} s either.", "bad")
    return reply.say(f"'undo {back}' gets back to a position that can still be won.", "hint")


def _undo_guess(session: Session) -> int | None:
    """Where no earlier position was proven winnable in time, how far to undo to the latest
    position not proven lost: the one before the earliest the searches proved lost (a position
    proven lost makes every later one lost). None when no step leads there."""
    hand = session.hand
    solved = session.memory.solved
    earliest = next((i for i, state in enumerate(hand.states)
                     if (known := solved.get(state)) is not None and known.result == advice.LOST),
                    len(hand.states) - 1)
    if earliest == 0:
        return None
    back = hand.steps_back(len(hand.states) - earliest)
    return back or None


def _guess(session: Session, budget: float) -> Reply:
    """An undecided position's hint: the move a player would try, said plainly as a guess."""
    move = advice.guess(session.game, session.state)
    undecided = f"undecided: no win found from here within {budget:g} s, and no loss proven"
    if move is None:  # no legal move means the game is over, and then it is decided
        return Reply().say(f"{undecided}.", "bad")
    return Reply().say(f"hint: {move}  (a guess, not proven; {undecided})", "hint")


def _hint_move(solution: advice.Verdict) -> Reply:
    return Reply().say(f"hint: {solution.moves[0]}  (a win in {plural(len(solution.moves), 'more move')})",
                       "hint")


def _need_player(session: Session, blind: bool = True) -> None:
    """A game with no solver (or, for hint and auto, no blind player) says so."""
    players = session.game.players
    if "solver" not in players and not (blind and "blind" in players):
        raise CommandError(f"{session.game.title} has no solver yet: no hint, solve or auto")


_LOST_FROM_START = "This deal cannot be won even from its start: try 'new'."


@command("solve", "solve [play]", "show a winning line from here, or play it with 'solve play'",
         arguments=("play",))
def _solve_cmd(session: Session, args: list[str]) -> Reply:
    args = [a.lower() for a in args]
    if args not in ([], ["play"]):
        raise CommandError("usage: solve [play]")
    _need_player(session, blind=False)
    solution = advice.decide(session, session.state, advice.SOLVE_BUDGET)
    reply = Reply()
    if solution.result == "lost":
        return reply.say("no win is possible from here ('hint' says how far to undo)", "bad")
    if solution.result == "unknown":
        return reply.say(f"undecided: the solver ran out of its {advice.SOLVE_BUDGET:g} s budget", "bad")
    if not solution.moves:
        return reply.say("the game is already won")
    # The line as the player types it: in a game that turns its cards up by itself the shell
    # makes those 'd' moves, and refuses them typed.
    # (a first 'd' stays: the waste is empty and the player turns the card up)
    shown = tuple(m for i, m in enumerate(solution.moves) if i == 0 or session.counts(m))
    if not args:
        reply.say(f"a win in {plural(len(shown), 'move')}:", "hint")
        for text in move_lines(session.state, shown, session.width):
            reply.say(text, "hint")
        return reply
    start = session.state
    session.mark(how="solver")  # the player's figures count this game apart from then on
    for move in solution.moves:
        session.play(move, turn_up=False)  # the line already holds its own deals
    reply.say(f"played {plural(len(shown), 'move')}:")
    for text in move_lines(start, shown, session.width):
        reply.say(text)
    return after_move(session, reply, by_solver=True)


# 'auto on': the safe moves after each move are searched for within these nodes, and this long
# at most (the pure-Python search of Crazy Quilt makes well under a thousand nodes a second in a
# hard position, the C core a hundred times more): only the search for the one move not proven
# lost costs anything, and it gives way to typing within half a second.
AUTO_NODES = 20_000
AUTO_SECONDS = 0.5


@command("auto", "auto [on|off]", "make the moves the solver proves safe; 'auto on': after each move",
         arguments=("on", "off"),
         details="Only moves that cannot turn a winnable position into a lost one: the only legal "
                 "move, a move the game's own rule proves safe (a card to the one foundation that "
                 "can ever take it, say), or the only move the solver does not prove lost. "
                 "'auto' makes them now, as one move for 'undo'. 'auto on' makes them after each "
                 "move of yours, shown on one line ('auto: q78 f2 w f3'), and one 'undo' takes "
                 "them back with your move; 'auto off' stops it (off by default). 'auto' says "
                 "whether it is on. In a game whose stock stays hidden (Calculation) the moves "
                 "are proven safe from the cards in sight alone.")
def _auto(session: Session, args: list[str]) -> Reply:
    words = [a.lower() for a in args]
    if words not in ([], ["on"], ["off"]):
        raise CommandError("usage: auto [on|off] ('auto' makes the safe moves now, 'auto on' after "
                           "each move, 'auto off' no longer)")
    if words == ["off"]:
        session.auto = False
        return Reply().say("auto is off: 'auto' makes the safe moves when asked")
    _need_player(session)
    if words == ["on"]:
        session.auto = True
        return Reply().say("auto is on: after each move, the moves proven safe play themselves "
                           "('undo' takes them back with the move)")
    from .solver import safe_moves

    setting = ("auto is on: the safe moves play themselves after each move" if session.auto
               else "auto is off: 'auto on' plays the safe moves after each move")
    moves = safe_moves(session.game, session.state)
    if not moves:
        return Reply().say("no move is provably safe here").say(setting, "dim")
    start = session.state
    session.play(moves[0], turn_up=False)  # one step: the line holds its own turned cards
    session.play_on(moves[1:])
    return after_move(session, _made(session, start, moves).say(setting, "dim"))


def _made(session: Session, start: Position, moves: Sequence[Move]) -> Reply:
    """The safe moves made, as the player types them (a card the game turns up by itself is not
    shown): on one line when they fit, else a line of moves as 'solve' shows them."""
    shown = tuple(m for m in moves if session.counts(m)) or tuple(moves)
    words = f"auto: {' '.join(str(m) for m in shown)}"
    if len(words) < session.width:
        return Reply().say(words)
    reply = Reply().say(f"auto: {plural(len(shown), 'move')}:")
    for text in move_lines(start, shown, session.width):
        reply.say(text)
    return reply


def _auto_after(session: Session) -> Reply:
    """After a move of the player's, with 'auto on': the moves proven safe, made as part of it."""
    players = session.game.players
    if (not session.auto or session.outcome() is not Outcome.IN_PLAY
            or not ("solver" in players or "blind" in players)):
        return Reply()
    from .solver import safe_moves

    start = session.state
    moves = safe_moves(session.game, start, budget=AUTO_SECONDS, nodes=AUTO_NODES)
    if not moves:
        return Reply()
    session.play_on(moves)
    return _made(session, start, moves)


FOLLOW_UPS.append(_auto_after)


# --- review ----------------------------------------------------------------------------------

VERDICT_WORDS = {"won": "winnable", "lost": "lost", "unknown": "undecided"}


def review_lines(result: advice.Review, game: Game) -> list[tuple[str, str]]:
    """A review as lines of text with their styles: each move with the verdict before and after
    it, then what the review found (``musical review`` prints the same lines)."""
    out: list[tuple[str, str]] = []
    width = max([len("move"), *(len(str(p.move)) for p in result.plies)])  # the header fits too
    digits = len(str(max((p.ply for p in result.plies), default=1)))
    if result.plies:
        out.append((f"  {'':>{digits}}  {'move':<{width}}  before     after", "dim"))
    for p in result.plies:
        after = "won" if p.won else VERDICT_WORDS[p.after]  # the game's end, not a position still to win
        text = f"  {p.ply:>{digits}}. {str(p.move):<{width}}  {VERDICT_WORDS[p.before]:<9}  {after}"
        if p.lost_the_game:
            out.append((text + "   <- lost the game" + (" (taken back)" if p.undone else ""), "bad"))
        else:
            out.append((text + ("   (taken back)" if p.undone else ""), ""))
    out += [(text, style) for text, style in review_summary(result, game)]
    return out


def review_summary(result: advice.Review, game: Game) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    if result.stopped:
        out.append(("stopped: the verdicts found so far.", "bad"))
    if result.lost_from_the_deal:
        out.append(("lost from the deal: no line of play could win it.", "bad"))
    elif result.losing:
        named = ", ".join(f"{p.ply}. {p.move}" + (" (taken back)" if p.undone else "") for p in result.losing)
        many = len(result.losing) > 1
        out.append((f"the move{'s' if many else ''} that lost a winnable game: {named}", "bad"))
    elif result.plies and result.plies[-1].after == "won":
        out.append(("no move lost the game: it was winnable after every move.", "good"))
    elif not result.plies and result.start == "won":
        out.append(("the deal is winnable.", "good"))
    if not result.complete and not result.lost_from_the_deal:
        undecided = sum(1 for p in result.plies if "unknown" in (p.before, p.after))
        if result.start == "unknown":
            out.append(("undecided from the deal: the solver proved neither a win nor a loss "
                        "from the start in time.", "bad"))
        if undecided:
            why = "the search ran out of time, or the review was stopped" if result.stopped else \
                "the search ran out of time"
            out.append((f"{plural(undecided, 'move')} with a verdict left undecided ({why}): no move "
                        "is named where it is not proven.", "bad"))
    if result.read_stock:
        out.append((f"(the review read {game.title}'s stock, which stays hidden in play)", "dim"))
    return out


def review_game(game: Game, start: Position, trail: Sequence[Played],
                known: dict[Position, advice.Verdict] | None = None,
                progress: Callable[[str], None] | None = None) -> advice.Review:
    """The review of a game (``review`` in the shell, ``musical review``): each move's verdict
    within the review's budgets, with ``progress`` told how far it is, in words."""
    started = time.monotonic()

    def report(done: int, total: int) -> None:
        if progress is not None:
            progress(review_progress(done, total, time.monotonic() - started))

    return advice.review(game, start, trail, advice.REVIEW_LIMIT, advice.REVIEW_PROBE, known=known,
                         progress=report if progress is not None else None)


@command("review", "review", "each move of this game with its verdict, and the move that lost it",
         details="Each move made, those taken back too, with whether the position was winnable, "
                 "lost or undecided before and after it; the moves that turned a winnable game "
                 "into a lost one are named. About 10 s at most; Ctrl-C stops it with what it "
                 "has. In a game whose stock stays hidden the review reads the stock, and says so.")
def _review(session: Session, args: list[str]) -> Reply:
    no_args(args, "review")
    _need_player(session, blind=False)
    if not session.trail:
        raise CommandError("no move has been made: nothing to review ('solve' says whether the deal can be won)")
    hand = session.hand
    got = review_game(hand.game, hand.start, hand.trail, session.memory.solved, session.front.text_progress)
    if session.interactive and session.game.auto_turn:
        got = got.in_steps(session.counts)  # numbered as the status line counts the moves
    reply = Reply()
    for text, style in review_lines(got, session.game):
        reply.say(text, style)
    return reply


@command("coach", "coach [on|off]", "the live verdict in the status line: winnable, lost or undecided",
         arguments=("on", "off"),
         details="After each move the status line says whether the game can still be won (with "
                 "the length of the winning line it found, which need not be the shortest: it "
                 "changes from move to move), is lost (and which undo wins again), or is "
                 "undecided; it is searched for beside the prompt, so typing never waits. A move "
                 "that loses a winnable game is announced, and so is a loss found after an "
                 "undecided position. Off by default: it gives the game away, and the "
                 "record counts the games played with it apart. In a game whose stock stays "
                 "hidden it gives a blind player's estimate instead. 'coach' alone says whether "
                 "it is on, and its verdict (a dumb terminal, with no status line, prints the "
                 "verdict before each prompt).")
def _coach(session: Session, args: list[str]) -> Reply:
    words = [a.lower() for a in args]
    if words not in ([], ["on"], ["off"]):
        raise CommandError("usage: coach [on|off]")
    if not words:
        says = session.front.coach_status() if session.coach else ""
        says = says.removeprefix("coach: ")  # "the coach is on: thinking...", not "...: coach: thinking..."
        return Reply().say(f"the coach is {'on' if session.coach else 'off'}" + (f": {says}" if says else ""))
    if not session.interactive:
        raise CommandError("the live coach is for the interactive shell; 'review' and 'hint' work here")
    if words == ["on"]:
        _need_player(session)
    session.coach = words == ["on"]
    if session.coach:
        session.mark(coached=True)  # the player's figures count this game apart
        return Reply().say("the coach is on: its verdict shows after each move")
    return Reply().say("the coach is off")
