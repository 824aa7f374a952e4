"""Advice: hint, solve and auto (a feature of the command registry, :mod:`.commands`)."""

from __future__ import annotations

import time
from typing import Any

from .commands import CommandError, Reply, Session, after_move, command, no_args
from .game import Outcome
from .play_commands import move_lines
from .render import plural

# The solver commands import it lazily: it is the heaviest module and the shell must start fast.
# hint answers within about a second: HINT_BUDGET for its own position, UNDO_BUDGET for how far
# to undo. Wins are found in milliseconds, while a proof that a position early in the first pass
# is lost can take seconds (Crazy Quilt's tens of seconds). So when a second leaves the answer
# open (no verdict here, no earlier position proven winnable, or one that may not be the latest),
# hint says what it knows and says so; 'hint' typed again at the same position then searches on
# (LONG_HINT_BUDGET here, SOLVE_BUDGET for how far to undo), with a progress bar that Ctrl-C stops.
HINT_BUDGET = 0.5
UNDO_BUDGET = 0.4
LONG_HINT_BUDGET = 5.0
SOLVE_BUDGET = 30.0
_AGAIN = "type 'hint' again to search longer"


def _solve(session: Session, state: Any, budget: float):
    from .solver import solve

    known = session.solved.get(state)
    if known is not None:
        return known
    solution = solve(session.game, state, budget=budget, progress=session.progress)
    if solution.result != "unknown":
        session.solved[state] = solution
        session.notify("solved")
    return solution


@command("hint", "hint", "the next move of a winning line from here",
         details="Where a player has seen the whole stock after the first pass, the solver sees it "
                 "too; when no win is left it says how many moves to undo to get back to one. "
                 "It answers within about a second; when that leaves the answer open it says so, "
                 "and 'hint' typed again before any move searches longer: up to 5 s for the "
                 "position, then up to 30 s for how far to undo (Ctrl-C stops it). "
                 "In a game whose stock stays hidden (Calculation), the hint never reads the "
                 "stock: it is the advice of a player who knows only the cards seen, not a "
                 "winning line, and it can lead to a loss. Once such a game is lost, every card "
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


def _hint(session: Session, args: list[str]) -> Reply:
    no_args(args, "hint")
    _need_player(session)
    session.notify("hint")
    if session.outcome() is Outcome.WON:
        return Reply().say("the game is won; nothing to hint")
    if session.game.hint_is_blind and not _hindsight(session):
        from .solver import blind_hint

        move = blind_hint(session.game, session.state)
        if move is None:
            return Reply().say("no move is left: 'undo' to go back", "bad")
        return Reply().say(f"hint: {move}  (from what you can see; the stock stays hidden)", "hint")
    here = session.state
    kept = session.hint_kept
    # The long search's answer, while nothing new is known here ('solve' may have decided it).
    if kept is not None and kept[0] is here and session.solved.get(here) is kept[1]:
        return Reply(list(kept[2]))
    longer = session.hint_open is here
    session.hint_open = None
    if longer:
        reply = _long_hint(session)
        session.hint_kept = (here, session.solved.get(here), list(reply.out))
        return reply
    solution = _solve(session, here, HINT_BUDGET)
    if solution.result == "won":
        return _hint_move(solution)
    lost = solution.result == "lost"
    back, exact = _undo_to_winnable(session, UNDO_BUDGET, probe=UNDO_BUDGET, start_probe=0.0, lost_here=lost)
    if back is None:  # the start itself is lost, so is every later position
        return Reply().say("no win is possible from here.", "bad").say(_LOST_FROM_START)
    session.hint_open = here  # cleared below when the answer is whole
    if lost:
        reply = Reply().say("no win is possible from here.", "bad")
        if back < 0:
            return reply.say(f"no earlier position was proven winnable yet: {_AGAIN}.", "bad")
        if exact:
            session.hint_open = None
            return reply.say(f"'undo {back}' gets back to a position that can still be won.", "hint")
        return reply.say(f"'undo {back}' gets back to a position that can still be won, and a later "
                         f"one may be too: {_AGAIN}.", "hint")
    undecided = f"undecided: no win found from here within {HINT_BUDGET:g} s, and no loss proven"
    if not session.moves:
        return Reply().say(f"{undecided}: {_AGAIN}.", "bad")
    reply = Reply().say(f"{undecided};", "bad")
    if back < 0:
        return reply.say(f"nor an earlier position proven winnable yet: {_AGAIN}.", "bad")
    return reply.say(f"'undo {back}' gets back to a position that can still be won; or {_AGAIN}.", "hint")


def _long_hint(session: Session) -> Reply:
    """``hint`` asked again where a quick one left its answer open: the long budgets."""
    solution = _solve(session, session.state, LONG_HINT_BUDGET)
    if solution.result == "won":
        return _hint_move(solution)
    lost = solution.result == "lost"
    # The start may take most of a lost position's long budget (deal 409's start is proven lost
    # in about 6 s), only half of an undecided one's (Crazy Quilt's starts are often its hardest).
    back, exact = _undo_to_winnable(session, SOLVE_BUDGET if lost else LONG_HINT_BUDGET,
                                    settle=LONG_HINT_BUDGET, start_probe=LONG_HINT_BUDGET if lost else 0.0,
                                    lost_here=lost)
    if back is None:
        return Reply().say("no win is possible from here.", "bad").say(_LOST_FROM_START)
    if lost:
        reply = Reply().say("no win is possible from here.", "bad")
        if back < 0:
            return reply.say(f"the solver found no earlier position winnable within {SOLVE_BUDGET:g} s: "
                             "undo by hand, or 'new'.", "bad")
        later = "" if exact else " (a later one may be too: some positions stayed undecided)"
        return reply.say(f"'undo {back}' gets back to a position that can still be won{later}.", "hint")
    reply = Reply().say(f"undecided: no win found from here within {LONG_HINT_BUDGET:g} s, and no loss "
                        f"proven ('solve' searches up to {SOLVE_BUDGET:g} s).", "bad")
    if not session.moves:
        return reply
    if back < 0:
        return reply.say(f"No earlier position was proven winnable within {LONG_HINT_BUDGET:g} s either.", "bad")
    return reply.say(f"'undo {back}' gets back to a position that can still be won.", "hint")


def _hint_move(solution: Any) -> Reply:
    return Reply().say(f"hint: {solution.moves[0]}  (a win in {plural(len(solution.moves), 'more move')})",
                       "hint")


def _need_player(session: Session, blind: bool = True) -> None:
    """A game with no solver (or, for hint and auto, no blind player) says so."""
    players = session.game.players
    if "solver" not in players and not (blind and "blind" in players):
        raise CommandError(f"{session.game.title} has no solver yet: no hint, solve or auto")


_LOST_FROM_START = "This deal cannot be won even from its start: try 'new'."


def _undo_to_winnable(session: Session, budget: float = SOLVE_BUDGET, settle: float | None = None,
                      probe: float = LONG_HINT_BUDGET, start_probe: float = LONG_HINT_BUDGET,
                      lost_here: bool = False) -> tuple[int | None, bool]:
    """How many moves to undo to reach the latest position proven winnable within ``budget``
    seconds (and within ``settle`` seconds more once one is found, when given), and whether it is
    surely the latest (every probe decided in time). None when even the start is proven lost, -1
    when nothing was proven either way in time. ``probe``: the most one probe may take;
    ``start_probe``: the most the start's probe may take, or half of what is left if more.
    ``lost_here``: the current position is proven lost (when no move has been made, it is the
    start).

    Winnability only ever goes from yes to no along a game (a lost position's successors are lost
    too), so there is one boundary, found by probing positions with the solver. A winning line
    from a probed position also proves winnable every later position the game reached by the
    same moves (they lie on that line). Proving a loss costs far more than finding a win (seconds
    against milliseconds early in a game), and only one loss needs proving, the position just
    after the boundary: so the probes walk forward, each at the first position not yet known to
    be winnable (the start, then where the game left the last winning line), for at most
    ``forward`` probes; then bisection over what is left (plain bisection when the start itself
    is undecided). An "unknown" counts as not winnable. The answer is the latest winnable
    position when no probe runs out of time, and a position proven winnable in any case."""
    deadline = time.monotonic() + budget
    last = len(session.states) - 1  # known lost
    lo, hi = 0, last  # the boundary lies in [lo, hi): states[hi] is not winnable
    best: int | None = None
    undecided: list[int] = []  # the positions probed without a verdict
    # None is a proof, so it needs one: the start probed and found lost, or the start is the
    # current position and the caller proved it lost. Undecided is never read as lost.
    start_lost = lost_here and last == 0
    forward = 24  # forward probes left
    while lo < hi:
        walking = forward > 0
        if walking:
            mid = lo
            forward -= 1
        else:
            mid = (lo + hi) // 2
        left = deadline - time.monotonic()
        if left <= 0:
            return (-1 if best is None else session.steps_back(last - best)), False
        # The start decides the most (lost there is lost everywhere), but in a game like Crazy
        # Quilt it is often the hardest position of all: half of what is left, or start_probe.
        cap = max(start_probe, left / 2) if mid == 0 else probe
        solution = _solve(session, session.states[mid], min(cap, left))
        result = solution.result
        if result == "won":
            # states[mid + k] is on the winning line while the game made the line's moves
            line = solution.moves
            k = 0
            while mid + k + 1 < hi and k < len(line) and session.moves[mid + k] == line[k]:
                k += 1
            if best is None and settle is not None:
                deadline = min(deadline, time.monotonic() + settle)
            best, lo = mid + k, mid + k + 1
        else:
            if result == "unknown":
                undecided.append(mid)
            if result == "unknown" and walking and mid == 0:
                forward = 0  # the start itself undecided: plain bisection, as before
                continue
            # "unknown" is treated as not winnable: the answer stays a position proven winnable,
            # perhaps earlier than the latest one.
            if result == "unknown" and best is None and mid == 0:
                return -1, False
            start_lost = start_lost or (mid == 0 and result == "lost")
            hi = mid
    # the answer is surely the latest unless a position after it was left undecided
    exact = not any(mid > (-1 if best is None else best) for mid in undecided)
    if best is None:
        return (None if start_lost else -1), exact
    return session.steps_back(last - best), exact


@command("solve", "solve [play]", "show a winning line from here, or play it with 'solve play'",
         arguments=("play",))
def _solve_cmd(session: Session, args: list[str]) -> Reply:
    args = [a.lower() for a in args]
    if args not in ([], ["play"]):
        raise CommandError("usage: solve [play]")
    _need_player(session, blind=False)
    solution = _solve(session, session.state, SOLVE_BUDGET)
    reply = Reply()
    if solution.result == "lost":
        return reply.say("no win is possible from here ('hint' says how far to undo)", "bad")
    if solution.result == "unknown":
        return reply.say(f"undecided: the solver ran out of its {SOLVE_BUDGET:g} s budget", "bad")
    if not solution.moves:
        return reply.say("the game is already won")
    if not args:
        reply.say(f"a win in {plural(len(solution.moves), 'move')}:", "hint")
        for text in move_lines(session.state, solution.moves, session.width):
            reply.say(text, "hint")
        return reply
    start = session.state
    session.how = "solver"  # the player's figures count this game apart from then on
    for move in solution.moves:
        session.play(move, turn_up=False)  # the line already holds its own deals
    reply.say(f"played {plural(len(solution.moves), 'move')}:")
    for text in move_lines(start, solution.moves, session.width):
        reply.say(text)
    return after_move(session, reply)


@command("auto", "auto", "make the moves the solver proves safe",
         details="Only moves that cannot turn a winnable position into a lost one.")
def _auto(session: Session, args: list[str]) -> Reply:
    no_args(args, "auto")
    _need_player(session)
    from .solver import safe_moves

    moves = safe_moves(session.game, session.state)
    if not moves:
        return Reply().say("no move is provably safe here")
    for move in moves:
        session.play(move, turn_up=False)
    words = f"auto: {' '.join(str(m) for m in moves)}"
    if len(words) < session.width:
        return after_move(session, Reply().say(words))
    reply = Reply().say(f"auto: {plural(len(moves), 'move')}:")
    for text in move_lines(session.states[-1 - len(moves)], moves, session.width):
        reply.say(text)
    return after_move(session, reply)


