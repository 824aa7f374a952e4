"""Advice: hint, solve and auto (a feature of the command registry, :mod:`.commands`)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from . import advice
from .commands import FOLLOW_UPS, CommandError, Reply, Session, after_move, command, no_args, usage_error
from .game import Game, Outcome
from .hand import Played, Position
from .i18n import N_, _, ngettext, pgettext
from .moves import Move
from .play_commands import move_lines
from .render import plural, review_progress

# The searches and their budgets live in the advice layer (musical_cli.advice); these are its
# commands. The budgets are read from there when a command runs (the tests shorten them).


def _again() -> str:
    """The end of a hint whose answer a longer search may change."""
    return _("type 'hint' again to search longer")


@command("hint", "hint", N_("the next move of a winning line from here"),
         details=N_("Where a player has seen the whole stock after the first pass, the solver sees it "
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
                    "a position that could still be won with the stock known."))
def _hint_cmd(session: Session, args: list[str]) -> Reply:
    reply = _hint(session, args)
    if _hindsight(session):
        return Reply().say(_("In hindsight (the game is lost, so every card has been seen):"), "hint").extend(reply)
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
        return Reply().say(_("the game is won; nothing to hint"))
    if session.game.hint_is_blind and not _hindsight(session) and not _all_seen(session):
        from .solver import blind_hint

        move = blind_hint(session.game, session.state)
        if move is None:
            return Reply().say(_("no move is left: 'undo' to go back"), "bad")
        # TRANSLATORS: {move} is a move in notation, typed ("p1 f3").
        return Reply().say(_("hint: {move}  (from what you can see; the stock stays hidden)").format(move=move),
                           "hint")
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
        return Reply().say(_("no win is possible from here."), "bad").say(_lost_from_start())
    memory.open = here  # cleared below when the answer is whole
    if lost:
        reply = Reply().say(_("no win is possible from here."), "bad")
        if back < 0:
            guess = _undo_guess(session)
            if guess is None:
                # TRANSLATORS: {again} is "type 'hint' again to search longer".
                return reply.say(_("no earlier position was proven winnable yet: {again}.").format(again=_again()),
                                 "bad")
            # TRANSLATORS: {n} is how many steps to undo, typed; {again} is "type 'hint' again to search longer".
            return reply.say(_("'undo {n}' may get back to a position that can still be won (a guess: "
                               "none was proven winnable yet, and the one it gets back to was not proven "
                               "lost); or {again}.").format(n=guess, again=_again()), "hint")
        if exact:
            memory.open = None
            # TRANSLATORS: {n} is how many steps to undo, typed.
            return reply.say(_("'undo {n}' gets back to a position that can still be won.").format(n=back), "hint")
        # TRANSLATORS: {n} is how many steps to undo, typed; {again} is "type 'hint' again to search longer".
        return reply.say(_("'undo {n}' gets back to a position that can still be won, and a later "
                           "one may be too: {again}.").format(n=back, again=_again()), "hint")
    reply = _guess(session, advice.HINT_BUDGET)
    if back < 0 or not session.moves:
        return reply.say(f"{_again()}.")
    # TRANSLATORS: {n} is how many steps to undo, typed; {again} is "type 'hint' again to search longer".
    return reply.say(_("'undo {n}' gets back to a position that can still be won; or {again}.").format(
        n=back, again=_again()), "hint")


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
        return Reply().say(_("no win is possible from here."), "bad").say(_lost_from_start())
    if lost:
        reply = Reply().say(_("no win is possible from here."), "bad")
        if back < 0:
            # TRANSLATORS: {seconds} is the solver's budget in seconds.
            return reply.say(_("the solver found no earlier position winnable within {seconds:g} s: "
                               "undo by hand, or 'new'.").format(seconds=advice.SOLVE_BUDGET), "bad")
        if exact:
            return reply.say(_("'undo {n}' gets back to a position that can still be won.").format(n=back), "hint")
        # TRANSLATORS: {n} is how many steps to undo, typed.
        return reply.say(_("'undo {n}' gets back to a position that can still be won (a later one may be "
                           "too: some positions stayed undecided).").format(n=back), "hint")
    reply = _guess(session, advice.LONG_HINT_BUDGET).say(
        # TRANSLATORS: {seconds} is the solver's budget in seconds.
        _("('solve' searches up to {seconds:g} s.)").format(seconds=advice.SOLVE_BUDGET))
    if not session.moves:
        return reply
    if back < 0:
        # TRANSLATORS: {seconds} is the long hint's budget in seconds.
        return reply.say(_("No earlier position was proven winnable within {seconds:g} s either.").format(
            seconds=advice.LONG_HINT_BUDGET), "bad")
    return reply.say(_("'undo {n}' gets back to a position that can still be won.").format(n=back), "hint")


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
    # TRANSLATORS: {seconds} is the search's budget in seconds.
    undecided = _("undecided: no win found from here within {seconds:g} s, and no loss proven").format(
        seconds=budget)
    if move is None:  # no legal move means the game is over, and then it is decided
        return Reply().say(f"{undecided}.", "bad")
    # TRANSLATORS: {move} is a move in notation, typed ("q78 f2"); {undecided} is "undecided: no win
    # found from here within 1 s, and no loss proven".
    return Reply().say(_("hint: {move}  (a guess, not proven; {undecided})").format(move=move, undecided=undecided),
                       "hint")


def _hint_move(solution: advice.Verdict) -> Reply:
    # TRANSLATORS: {move} is a move in notation, typed ("w f2"); {moves} a count ("12 more moves").
    return Reply().say(_("hint: {move}  (a win in {moves})").format(
        move=solution.moves[0], moves=plural(len(solution.moves), "more move")), "hint")


def _need_player(session: Session, blind: bool = True) -> None:
    """A game with no solver (or, for hint and auto, no blind player) says so."""
    players = session.game.players
    if "solver" not in players and not (blind and "blind" in players):
        # TRANSLATORS: {title} is the game's name.
        raise CommandError(_("{title} has no solver yet: no hint, solve or auto").format(title=session.game.title))


def _lost_from_start() -> str:
    return _("This deal cannot be won even from its start: try 'new'.")


@command("solve", "solve [play]", N_("show a winning line from here, or play it with 'solve play'"),
         arguments=("play",))
def _solve_cmd(session: Session, args: list[str]) -> Reply:
    args = [a.lower() for a in args]
    if args not in ([], ["play"]):
        raise usage_error("solve [play]")
    _need_player(session, blind=False)
    solution = advice.decide(session, session.state, advice.SOLVE_BUDGET)
    reply = Reply()
    if solution.result == "lost":
        return reply.say(_("no win is possible from here ('hint' says how far to undo)"), "bad")
    if solution.result == "unknown":
        # TRANSLATORS: {seconds} is the solver's budget in seconds.
        return reply.say(_("undecided: the solver ran out of its {seconds:g} s budget").format(
            seconds=advice.SOLVE_BUDGET), "bad")
    if not solution.moves:
        return reply.say(_("the game is already won"))
    # The line as the player types it: in a game that turns its cards up by itself the shell
    # makes those 'd' moves, and refuses them typed.
    # (a first 'd' stays: the waste is empty and the player turns the card up)
    shown = tuple(m for i, m in enumerate(solution.moves) if i == 0 or session.counts(m))
    if not args:
        # TRANSLATORS: {moves} is a count of moves ("12 moves"); the line of moves follows.
        reply.say(_("a win in {moves}:").format(moves=plural(len(shown), "move")), "hint")
        for text in move_lines(session.state, shown, session.width):
            reply.say(text, "hint")
        return reply
    start = session.state
    session.mark(how="solver")  # the player's figures count this game apart from then on
    for move in solution.moves:
        session.play(move, turn_up=False)  # the line already holds its own deals
    # TRANSLATORS: {moves} is a count of moves ("12 moves"); the moves follow.
    reply.say(_("played {moves}:").format(moves=plural(len(shown), "move")))
    for text in move_lines(start, shown, session.width):
        reply.say(text)
    return after_move(session, reply, by_solver=True)


# 'auto on': the safe moves after each move are searched for within these nodes, and this long
# at most (the pure-Python search of Crazy Quilt makes well under a thousand nodes a second in a
# hard position, the C core a hundred times more): only the search for the one move not proven
# lost costs anything, and it gives way to typing within half a second.
AUTO_NODES = 20_000
AUTO_SECONDS = 0.5


@command("auto", "auto [on|off]", N_("make the moves the solver proves safe; 'auto on': after each move"),
         arguments=("on", "off"),
         details=N_("Only moves that cannot turn a winnable position into a lost one: the only legal "
                    "move, a move the game's own rule proves safe (a card to the one foundation that "
                    "can ever take it, say), or the only move the solver does not prove lost. "
                    "'auto' makes them now, as one move for 'undo'. 'auto on' makes them after each "
                    "move of yours, shown on one line ('auto: q78 f2 w f3'), and one 'undo' takes "
                    "them back with your move; 'auto off' stops it (off by default). 'auto' says "
                    "whether it is on. In a game whose stock stays hidden (Calculation) the moves "
                    "are proven safe from the cards in sight alone."))
def _auto(session: Session, args: list[str]) -> Reply:
    words = [a.lower() for a in args]
    if words not in ([], ["on"], ["off"]):
        # TRANSLATORS: {usage} is the usage line of 'auto', typed.
        raise CommandError(_("usage: {usage} ('auto' makes the safe moves now, 'auto on' after "
                             "each move, 'auto off' no longer)").format(usage="auto [on|off]"))
    if words == ["off"]:
        session.auto = False
        return Reply().say(_("auto is off: 'auto' makes the safe moves when asked"))
    _need_player(session)
    if words == ["on"]:
        session.auto = True
        return Reply().say(_("auto is on: after each move, the moves proven safe play themselves "
                             "('undo' takes them back with the move)"))
    from .solver import safe_moves

    setting = (_("auto is on: the safe moves play themselves after each move") if session.auto
               else _("auto is off: 'auto on' plays the safe moves after each move"))
    moves = safe_moves(session.game, session.state)
    if not moves:
        return Reply().say(_("no move is provably safe here")).say(setting, "dim")
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
    # TRANSLATORS: {moves} is a count of moves ("12 moves"); the moves follow. "auto" is the command.
    reply = Reply().say(_("auto: {moves}:").format(moves=plural(len(shown), "move")))
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

def verdict_word(result: str) -> str:
    """A position's verdict (the advice layer's result, which programs read: "won", "lost",
    "unknown") as the review's table says it."""
    words = {
        # TRANSLATORS: a position's verdict in the review's table, said of a position.
        "won": pgettext("position", "winnable"),
        "lost": pgettext("position", "lost"),
        "unknown": pgettext("position", "undecided"),
    }
    return words[result]


def review_lines(result: advice.Review, game: Game) -> list[tuple[str, str]]:
    """A review as lines of text with their styles: each move with the verdict before and after
    it, then what the review found (``musical review`` prints the same lines)."""
    out: list[tuple[str, str]] = []
    # TRANSLATORS: the review table's column headers: the move made, the verdict before it and after it.
    move, before, after = pgettext("review", "move"), pgettext("review", "before"), pgettext("review", "after")
    words = [verdict_word(v) for v in ("won", "lost", "unknown")]
    verdicts = max(len(before), *(len(w) for w in words))  # the width of the column "before"
    width = max([len(move), *(len(str(p.move)) for p in result.plies)])  # the header fits too
    digits = len(str(max((p.ply for p in result.plies), default=1)))
    if result.plies:
        out.append((f"  {'':>{digits}}  {move:<{width}}  {before:<{verdicts}}  {after}", "dim"))
    # TRANSLATORS: in the review's table, after a move: the move was taken back ('undo').
    taken_back = _("(taken back)")
    for p in result.plies:
        # the game's end, not a position still to win
        # TRANSLATORS: the verdict after the move that wins the game, in the review's table.
        end = pgettext("review", "won") if p.won else verdict_word(p.after)
        text = f"  {p.ply:>{digits}}. {str(p.move):<{width}}  {verdict_word(p.before):<{verdicts}}  {end}"
        if p.lost_the_game:
            # TRANSLATORS: in the review's table, beside the move that turned a winnable game into a lost one.
            out.append((text + "   " + _("<- lost the game") + (" " + taken_back if p.undone else ""), "bad"))
        else:
            out.append((text + ("   " + taken_back if p.undone else ""), ""))
    out += [(text, style) for text, style in review_summary(result, game)]
    return out


def review_summary(result: advice.Review, game: Game) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    if result.stopped:
        out.append((_("stopped: the verdicts found so far."), "bad"))
    if result.lost_from_the_deal:
        out.append((_("lost from the deal: no line of play could win it."), "bad"))
    elif result.losing:
        taken_back = _("(taken back)")
        named = ", ".join(f"{p.ply}. {p.move}" + (" " + taken_back if p.undone else "") for p in result.losing)
        # one move or several (not a count: the number is not said)
        # TRANSLATORS: {moves} are the moves, numbered: "12. w f2, 15. d".
        lost = (_("the moves that lost a winnable game: {moves}") if len(result.losing) > 1
                else _("the move that lost a winnable game: {moves}"))
        out.append((lost.format(moves=named), "bad"))
    elif result.plies and result.plies[-1].after == "won":
        out.append((_("no move lost the game: it was winnable after every move."), "good"))
    elif not result.plies and result.start == "won":
        out.append((_("the deal is winnable."), "good"))
    if not result.complete and not result.lost_from_the_deal:
        undecided = sum(1 for p in result.plies if "unknown" in (p.before, p.after))
        if result.start == "unknown":
            out.append((_("undecided from the deal: the solver proved neither a win nor a loss "
                          "from the start in time."), "bad"))
        if undecided:
            why = _("the search ran out of time, or the review was stopped") if result.stopped else \
                _("the search ran out of time")
            # TRANSLATORS: {n} is a count of moves; {why} is "the search ran out of time".
            out.append((ngettext("{n} move with a verdict left undecided ({why}): no move is named where "
                                 "it is not proven.",
                                 "{n} moves with a verdict left undecided ({why}): no move is named where "
                                 "it is not proven.", undecided).format(n=undecided, why=why), "bad"))
    if result.read_stock:
        # TRANSLATORS: {title} is the game's name ("Calculation").
        out.append((_("(the review read {title}'s stock, which stays hidden in play)").format(title=game.title),
                    "dim"))
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


@command("review", "review", N_("each move of this game with its verdict, and the move that lost it"),
         details=N_("Each move made, those taken back too, with whether the position was winnable, "
                    "lost or undecided before and after it; the moves that turned a winnable game "
                    "into a lost one are named. About 10 s at most; Ctrl-C stops it with what it "
                    "has. In a game whose stock stays hidden the review reads the stock, and says so."))
def _review(session: Session, args: list[str]) -> Reply:
    no_args(args, "review")
    _need_player(session, blind=False)
    if not session.trail:
        raise CommandError(_("no move has been made: nothing to review ('solve' says whether the deal can be won)"))
    hand = session.hand
    got = review_game(hand.game, hand.start, hand.trail, session.memory.solved, session.front.text_progress)
    if session.interactive and session.game.auto_turn:
        got = got.in_steps(session.counts)  # numbered as the status line counts the moves
    reply = Reply()
    for text, style in review_lines(got, session.game):
        reply.say(text, style)
    return reply


@command("coach", "coach [on|off]", N_("the live verdict in the status line: winnable, lost or undecided"),
         arguments=("on", "off"),
         details=N_("After each move the status line says whether the game can still be won (with "
                    "the length of the winning line it found, which need not be the shortest: it "
                    "changes from move to move), is lost (and which undo wins again), or is "
                    "undecided; it is searched for beside the prompt, so typing never waits. A move "
                    "that loses a winnable game is announced, and so is a loss found after an "
                    "undecided position. Off by default: it gives the game away, and the "
                    "record counts the games played with it apart. In a game whose stock stays "
                    "hidden it gives a blind player's estimate instead. 'coach' alone says whether "
                    "it is on, and its verdict (a dumb terminal, with no status line, prints the "
                    "verdict before each prompt)."))
def _coach(session: Session, args: list[str]) -> Reply:
    words = [a.lower() for a in args]
    if words not in ([], ["on"], ["off"]):
        raise usage_error("coach [on|off]")
    if not words:
        if not session.coach:
            return Reply().say(_("the coach is off"))
        says = session.front.coach_status()
        # "the coach is on: thinking...", not "...: coach: thinking..." (the status line's words,
        # musical_cli.live, in the language in use)
        # TRANSLATORS: the beginning of the coach's own words on the status line ("coach: thinking...").
        says = says.removeprefix("coach: ").removeprefix(_("coach:") + " ")
        # TRANSLATORS: {verdict} is the coach's verdict as the status line says it ("winnable: 12 moves").
        return Reply().say(_("the coach is on: {verdict}").format(verdict=says) if says else _("the coach is on"))
    if not session.interactive:
        raise CommandError(_("the live coach is for the interactive shell; 'review' and 'hint' work here"))
    if words == ["on"]:
        _need_player(session)
    session.coach = words == ["on"]
    if session.coach:
        session.mark(coached=True)  # the player's figures count this game apart
        return Reply().say(_("the coach is on: its verdict shows after each move"))
    return Reply().say(_("the coach is off"))
