"""The advice layer (musical_cli.advice): a position's verdict within a limit, a search that can
be stopped, and the review of a game, checked against the solver on all three games."""

from __future__ import annotations

import random
import re
import threading

import pytest

from musical_cli import advice
from musical_cli.advice import LOST, UNKNOWN, WON, Limit, analyse, review, trail_of
from musical_cli.commands import Unattended
from musical_cli.deals import DealNumber
from musical_cli.game import Outcome
from musical_cli.games import game_named
from musical_cli.games.calculation.solver import CORE as CALCULATION_CORE
from musical_cli.games.musical.rules import MUSICAL, MusicalRules
from musical_cli.moves import DEAL, Transfer
from musical_cli.render import plain
from musical_cli.solver import solve

LOST_409 = MUSICAL.opening(DealNumber(409))  # proven lost in about a second of CPU time
# The limits of the searches asserted on, in nodes (the same verdicts on every machine, however
# loaded): far more than any position here takes (a Calculation deal's lost position, the most,
# about 550,000), so that a solver made slower fails instead of hanging.
NODES = 5_000_000
# The review's: for the whole review and for one position (these games' reviews that end take
# 700,000 nodes at most; one that stays undecided takes all of the limit).
REVIEW = {"limit": Limit(nodes=10_000_000), "probe": Limit(nodes=1_000_000)}


@pytest.fixture
def node_reviews(monkeypatch):
    """The review command and 'musical review' within REVIEW's node limits instead of their
    seconds (both read the limits when they run)."""
    monkeypatch.setattr(advice, "REVIEW_LIMIT", REVIEW["limit"])
    monkeypatch.setattr(advice, "REVIEW_PROBE", REVIEW["probe"])


def test_a_limit_is_a_value():
    assert Limit(seconds=1, nodes=5) == Limit(seconds=1, nodes=5)
    assert str(Limit()) == "no limit"
    assert "CPU" in str(Limit(seconds=2))
    with pytest.raises(ValueError, match="0 or more"):
        Limit(nodes=-1)


def test_analyse_decides_and_its_line_wins():
    state = MUSICAL.opening(DealNumber(2))
    got = analyse(MUSICAL, state, Limit(nodes=1_000_000))
    assert got.result == WON and got.decided
    assert MUSICAL.outcome(MUSICAL.play(state, got.moves)) is Outcome.WON
    assert analyse(MUSICAL, LOST_409, Limit(nodes=10_000_000)).result == LOST


def test_a_node_limit_leaves_it_undecided():
    got = analyse(MUSICAL, LOST_409, Limit(nodes=2_000))
    assert got.result == UNKNOWN and not got.decided and not got.stopped and got.moves == ()


def test_cpu_seconds_run_out():
    got = analyse(MUSICAL, LOST_409, Limit(seconds=0.0))
    assert got.result == UNKNOWN and not got.stopped
    assert got.nodes < 564_553  # stopped before the proof


@pytest.mark.parametrize("name", ["musical", "calculation", "crazy-quilt"])
def test_a_stop_event_ends_the_search(name):
    """The live coach's cancel: set while searching (here from the progress report itself,
    which each game's search calls, Musical's C core too), the search ends undecided."""
    game = game_named(name)
    # positions whose search outlasts its first progress report (0.15 s) on any machine: Crazy
    # Quilt's deal 409 no longer does (rule 7 wins it in 94,020 nodes, about 0.2 s), nor deal 34
    # (rule 8 wins it in 19,560); deal 175 is undecided after 3,000,000
    state = LOST_409 if name == "musical" else game.opening(DealNumber(175 if name == "crazy-quilt" else 1))
    stop = threading.Event()
    calls = []

    def progress(nodes, seconds):
        calls.append(nodes)
        stop.set()

    got = analyse(game, state, Limit(nodes=50_000_000), progress=progress, stop=stop)
    assert got.stopped and got.result == UNKNOWN
    assert len(calls) == 1  # the next report after the stop ended it


def test_a_stop_set_before_asks_nothing(monkeypatch):
    stop = threading.Event()
    stop.set()
    assert analyse(MUSICAL, LOST_409, stop=stop).stopped


# --- the review ------------------------------------------------------------------------------


def _line(game, state, limit=None):
    got = analyse(game, state, limit or Limit(nodes=NODES))
    assert got.result == WON
    return got.moves


def _states(game, deal, rules, moves):
    states = [game.opening(DealNumber(deal), rules)]
    for m in moves:
        states.append(game.apply(states[-1], m))
    return states


# Seeded deals of each game the solver decides quickly: (game, deal, rules)
WINNABLE = [("musical", 2, None), ("calculation", 3, None), ("crazy-quilt", 2, None)]


def _rules(game, rules):
    return game.default_rules() if rules is None else rules


@pytest.mark.parametrize(("name", "deal", "rules"), WINNABLE)
def test_along_a_winning_line_no_move_is_named(name, deal, rules):
    game = game_named(name)
    rules = _rules(game, rules)
    start = game.opening(DealNumber(deal), rules)
    moves = _line(game, start)
    states = _states(game, deal, rules, moves)
    got = review(game, start, trail_of(states, moves), **REVIEW)
    assert got.losing == () and got.start == WON and not got.lost_from_the_deal
    assert all(p.before == WON and p.after == WON for p in got.plies)
    assert got.complete


def _leave_the_line(game, start, line, k, seed):
    """The first k moves of the line, then random moves until none is left."""
    rng = random.Random(seed)
    moves = list(line[:k])
    state = game.play(start, moves)
    while game.outcome(state) is Outcome.IN_PLAY:
        legal = game.legal_moves(state)
        plays = [m for m in legal if isinstance(m, Transfer)]
        move = rng.choice(plays) if plays and rng.random() < 0.7 else rng.choice(legal)
        moves.append(move)
        state = game.apply(state, move)
    return moves, game.outcome(state)


@pytest.mark.parametrize(("name", "deal", "rules"), WINNABLE)
@pytest.mark.parametrize("k", [pytest.param(30, marks=pytest.mark.slow), 80])
def test_a_game_that_leaves_a_winning_line_names_a_move_at_k_or_later(name, deal, rules, k):
    """Along the line for k moves, then at random until the game is lost: a move named as
    losing comes after the k-th, its position before is winnable and after it lost (checked
    by the solver afresh), and no other move is named."""
    game = game_named(name)
    rules = _rules(game, rules)
    start = game.opening(DealNumber(deal), rules)
    line = _line(game, start)
    for seed in range(20):
        moves, outcome = _leave_the_line(game, start, line, k, seed)
        if outcome is Outcome.LOST:
            break
    else:
        pytest.skip("every random continuation won")
    states = _states(game, deal, rules, moves)
    got = review(game, start, trail_of(states, moves), **REVIEW)
    assert not got.lost_from_the_deal and got.start == WON
    assert all(p.before == WON and p.after == WON for p in got.plies[:k])
    assert len(got.losing) <= 1  # one line: it can be lost only once
    for ply in got.losing:
        assert ply.ply > k, (ply, k)  # never on the winning line's own moves
        assert solve(game, states[ply.ply - 1], budget=None, nodes=NODES).result == "won"
        assert solve(game, states[ply.ply], budget=None, nodes=NODES).result == "lost"
    assert all(p.before != LOST or p.after == LOST for p in got.plies)  # lost stays lost
    if got.complete:
        assert len(got.losing) == 1


@pytest.mark.parametrize(("name", "deal", "rules"), [
    ("musical", 1, MusicalRules(0)),  # no opening is winnable without a redeal
    pytest.param("musical", 409, None, marks=pytest.mark.slow),
    # Calculation's and Crazy Quilt's deals take the solver far longer to prove lost than a test
    # may: there the "deal" is a position of a random game that the solver proves lost quickly.
    pytest.param("calculation", 1, None, marks=pytest.mark.slow),
    ("crazy-quilt", 1, None),
])
def test_a_deal_proven_lost_names_no_move(name, deal, rules):
    game = game_named(name)
    rules = _rules(game, rules)
    start = game.opening(DealNumber(deal), rules)
    rng = random.Random(deal)
    while analyse(game, start, Limit(nodes=200_000)).result != LOST:
        for _ in range(8):  # a few random moves between probes
            assert game.outcome(start) is not Outcome.WON
            if game.outcome(start) is Outcome.IN_PLAY:
                start = game.apply(start, rng.choice(game.legal_moves(start)))
    moves, states = [], [start]
    while game.outcome(states[-1]) is Outcome.IN_PLAY and len(moves) < 150:
        move = rng.choice(game.legal_moves(states[-1]))
        moves.append(move)
        states.append(game.apply(states[-1], move))
    got = review(game, start, trail_of(states, moves), **REVIEW)
    assert got.lost_from_the_deal and got.start == LOST
    assert got.losing == ()
    assert all(p.before == LOST and p.after == LOST for p in got.plies)


def test_a_losing_move_undone_is_named_and_so_is_a_later_one():
    """Lose a winnable game, undo, play on along the winning line, lose it again: both moves
    are named, the first as taken back (deal 4 at one redeal: moves off its line lose)."""
    rules = MusicalRules(1)
    start = MUSICAL.opening(DealNumber(4), rules)
    line = _line(MUSICAL, start)
    states = _states(MUSICAL, 4, rules, line)
    losing = []  # (i, a move at states[i] that loses)
    for i in range(len(line)):
        for move in MUSICAL.legal_moves(states[i]):
            if move != line[i] and solve(MUSICAL, MUSICAL.apply(states[i], move), budget=None, nodes=NODES).result == "lost":
                losing.append((i, move))
                break
        if len(losing) == 2:
            break
    (i, first), (j, second) = losing
    trail = trail_of(states[:i + 1], line[:i])
    trail.append((i + 1, first, states[i], MUSICAL.apply(states[i], first)))  # lost it...
    trail += trail_of(states[:j + 1], line[:j])[i:]  # ...undone: on along the line
    trail.append((j + 1, second, states[j], MUSICAL.apply(states[j], second)))  # lost again
    got = review(MUSICAL, start, trail, **REVIEW)
    assert [(p.ply, p.undone) for p in got.losing] == [(i + 1, True), (j + 1, False)]
    assert got.start == WON and not got.lost_from_the_deal
    # the same game without the undo names only its one losing move
    got = review(MUSICAL, start, trail_of(states[:j + 1], line[:j]) + [trail[-1]], **REVIEW)
    assert [p.ply for p in got.losing] == [j + 1]


def test_undecided_is_said_as_undecided():
    """A review with no time to decide anything names no move and calls nothing lost."""
    start = LOST_409
    rng = random.Random(3)
    moves, state = [], start
    for _ in range(30):
        move = rng.choice(MUSICAL.legal_moves(state))
        moves.append(move)
        state = MUSICAL.apply(state, move)
    states = [start]
    for m in moves:
        states.append(MUSICAL.apply(states[-1], m))
    got = review(MUSICAL, start, trail_of(states, moves), limit=Limit(nodes=1))
    assert got.start == UNKNOWN and not got.lost_from_the_deal and got.losing == ()
    assert {p.before for p in got.plies} == {UNKNOWN} and not got.complete


def test_ctrl_c_stops_the_review_with_what_it_has():
    game = game_named("crazy-quilt")
    start = game.opening(DealNumber(2))
    moves = _line(game, start)[:40]
    states = _states(game, 2, game.default_rules(), moves)
    seen = []

    def progress(done, total):
        seen.append(done)
        raise KeyboardInterrupt

    got = review(game, start, trail_of(states, moves), progress=progress)
    assert got.stopped and len(seen) == 1
    assert len(got.plies) == 40


def test_a_review_reuses_known_verdicts(monkeypatch):
    start = MUSICAL.opening(DealNumber(2))
    moves = _line(MUSICAL, start)
    states = _states(MUSICAL, 2, MusicalRules(), moves)
    known: dict = {}
    review(MUSICAL, start, trail_of(states, moves), known=known, **REVIEW)
    assert known
    monkeypatch.setattr(advice, "analyse", lambda *a, **k: pytest.fail("searched again"))
    assert review(MUSICAL, start, trail_of(states, moves), known=known, **REVIEW).complete


def _probed_game(monkeypatch, verdict_of):
    """A 60-move game of deal 2 (its winning line's first moves) whose positions the undo search's
    probes find ``verdict_of(i)`` (a decided one kept, as decide keeps it); the probes' positions
    are listed."""
    from musical_cli.language import Session

    moves = _line(MUSICAL, MUSICAL.opening(DealNumber(2), MusicalRules()))[:60]
    session = Session(MUSICAL, DealNumber(2), MusicalRules())
    session.start(MUSICAL, DealNumber(2), MusicalRules(), tuple(moves))
    probed = []

    def decide(session, state, budget):
        i = next(i for i, s in enumerate(session.hand.states) if s is state)
        probed.append(i)
        verdict = advice.Verdict(verdict_of(i))
        if verdict.decided:
            session.memory.solved[state] = verdict
        return verdict

    monkeypatch.setattr(advice, "decide", decide)
    return session, probed


@pytest.mark.parametrize(("hard", "exact"), [(range(35, 60), True), (range(34, 60), False)])
def test_an_undo_count_is_surely_the_latest_when_the_position_after_it_is_proven_lost(
        hard, exact, monkeypatch):
    """Positions 0-33 of a 60-move game winnable, the rest lost, and the probes of ``hard`` ones
    run out of time: the count names position 33 either way, and is surely the latest exactly
    when position 34 was proven lost (a probe left undecided after a lost position was of a lost
    one: what is after a lost position is lost)."""
    session, probed = _probed_game(monkeypatch, lambda i: UNKNOWN if i in hard else WON if i <= 33 else LOST)
    got = advice.undo_to_winnable(session, 60.0, lost_here=True)
    assert any(i > 34 and i in hard for i in probed), probed  # a probe after the boundary ran out
    assert got == (session.steps_back(60 - 33), exact)


def test_the_undo_search_decides_a_cheap_boundary_past_dear_winnable_positions(monkeypatch):
    """Positions 0-40 of a 60-move game winnable, the rest lost; every winnable one but 40 takes
    more than a probe may have (as early positions of a Crazy Quilt game often do), while 40 is
    won and 41-59 proven lost at once. The first hint's undo search still names position 40,
    surely the latest: an undecided probe is read as neither winnable nor lost, and the position
    just before the earliest one proven lost is probed first. (Read as lost, the first
    undecided probe would end the search short of the boundary.)"""
    session, probed = _probed_game(monkeypatch, lambda i: WON if i == 40 else UNKNOWN if i < 40 else LOST)
    undo = advice.undo_budget(0.0)
    got = advice.undo_to_winnable(session, undo, probe=undo, start_probe=0.0, lost_here=True)
    assert got == (session.steps_back(60 - 40), True), probed


def test_an_undo_count_never_names_the_position_in_hand(monkeypatch):
    """A game that kept to the winning line found from its start, here undecided (its own probe
    ran out): the count names the position before this one, never 'undo 0' (the walk along a
    winning line stops before the position in hand)."""
    from musical_cli.language import Session

    rules = MusicalRules()
    line = _line(MUSICAL, MUSICAL.opening(DealNumber(2), rules))
    session = Session(MUSICAL, DealNumber(2), rules)
    session.start(MUSICAL, DealNumber(2), rules, tuple(line[:20]))

    def decide(session, state, budget):
        return advice.Verdict(WON, tuple(line)) if state is session.hand.states[0] else advice.Verdict(UNKNOWN)

    monkeypatch.setattr(advice, "decide", decide)
    assert advice.undo_to_winnable(session, 0.9, probe=0.9, start_probe=0.0) == (session.steps_back(1), False)


# --- the review command and 'musical review' ---------------------------------------------------


def _deal4_lost():
    """Deal 4 at one redeal: its winning line, and the first move off it that loses (index)."""
    rules = MusicalRules(1)
    start = MUSICAL.opening(DealNumber(4), rules)
    line = _line(MUSICAL, start)
    state = start
    for i, right in enumerate(line):
        for move in MUSICAL.legal_moves(state):
            if move != right and solve(MUSICAL, MUSICAL.apply(state, move), budget=None, nodes=NODES).result == "lost":
                return rules, line, i, move
        state = MUSICAL.apply(state, right)
    raise AssertionError("no losing move")


def test_the_review_command_names_the_move_that_lost_even_once_taken_back(node_reviews):
    from musical_cli.language import Session, execute
    from musical_cli.render import plain

    rules, line, i, wrong = _deal4_lost()
    s = Session(MUSICAL, DealNumber(4), rules)
    execute(s, "; ".join(str(m) for m in line[:i]))
    execute(s, str(wrong))
    out = plain(execute(s, "review").out)
    assert f"the move that lost a winnable game: {i + 1}. {wrong}" in out, out
    assert "(taken back)" not in out
    execute(s, "undo")
    execute(s, "; ".join(str(m) for m in line[i:i + 3]))
    out = plain(execute(s, "review").out)
    assert f"{i + 1}. {wrong} (taken back)" in out, out
    assert out.count("<- lost the game") == 1


def test_the_review_command_needs_a_move():
    from musical_cli.language import CommandError, Session, execute

    with pytest.raises(CommandError, match="nothing to review"):
        execute(Session(MUSICAL, DealNumber(4)), "review")


def test_musical_review_json(tmp_path, monkeypatch, capsys, node_reviews):
    import json

    from lines import run_main

    from musical_cli.transcript import GameRecord, format_transcript

    rules, line, i, wrong = _deal4_lost()
    moves = (*line[:i], wrong)
    path = tmp_path / "game.txt"
    path.write_text(format_transcript(GameRecord(MUSICAL, DealNumber(4), rules, moves)))
    status, out, err = run_main(["review", "--json", str(path)], "", monkeypatch, capsys)
    assert status == 0, err
    rows = [json.loads(x) for x in out.splitlines()]
    assert len(rows) == len(moves) + 1
    assert rows[0] == {"ply": 1, "move": str(line[0]), "before": "won", "after": "won"}
    assert rows[i] == {"ply": i + 1, "move": str(wrong), "before": "won", "after": "lost"}
    assert rows[-1]["summary"] and rows[-1]["losing"] == [i + 1] and not rows[-1]["lost_from_the_deal"]
    status, out, err = run_main(["review", "-"], path.read_text(), monkeypatch, capsys)
    assert status == 0 and f"the move that lost a winnable game: {i + 1}. {wrong}" in out
    assert "\x1b" not in out  # a pipe gets no escape codes
    status, out, err = run_main(["review", "-"], "format: musical-transcript 1\ngame: musical\ndeal: 4\nw f9\n", monkeypatch, capsys)
    assert status == 3 and "f9" in err


def test_musical_review_of_calculation_says_it_read_the_stock(monkeypatch, capsys):
    from lines import run_main

    status, out, err = run_main(["review", "-"], "format: musical-transcript 1\ngame: calculation\ndeal: 3\nd\n", monkeypatch, capsys)
    assert status == 0, err
    assert "the review read Calculation's stock" in out


# --- the live coach ----------------------------------------------------------------------------


def test_coach_on_and_off_marks_the_game_coached():
    from musical_cli.language import CommandError, Session, execute
    from musical_cli.render import plain

    s = Session(MUSICAL, DealNumber(4), interactive=True)
    assert not s.coached and "off" in plain(execute(s, "coach").out)
    execute(s, "coach on")
    assert s.coach and s.coached
    execute(s, "coach off")
    assert not s.coach and s.coached  # it was on during this game
    with pytest.raises(CommandError, match="usage"):
        execute(s, "coach maybe")
    with pytest.raises(CommandError, match="interactive shell"):
        execute(Session(MUSICAL, DealNumber(4)), "coach on")


def _coach(session):
    from musical_cli.live import Coach

    said = []
    return Coach(session, lambda: None, said.append), said


@pytest.mark.slow
def test_the_coach_in_the_background_and_a_new_move_cancels_it():
    from musical_cli.language import Session, execute

    s = Session(MUSICAL, DealNumber(409), interactive=True)  # the start: a second to prove lost
    s.coach = True
    coach, said = _coach(s)
    coach.update()
    assert coach.status() == "coach: thinking..."  # update() returned before the verdict
    first = coach._stop
    execute(s, "d")
    coach.update()
    assert first.is_set()  # the old position's search is told to stop
    coach.wait(60)
    assert coach.status().startswith("lost") and said == []  # lost from the start: no move lost it
    assert s.coached


def test_the_coach_announces_the_move_that_lost():
    from musical_cli.language import Session, execute
    from musical_cli.live import LOST_MOVE

    rules, line, i, wrong = _deal4_lost()
    s = Session(MUSICAL, DealNumber(4), rules, interactive=True)
    s.coach = True
    coach, said = _coach(s)
    execute(s, "; ".join(str(m) for m in line[:i]))
    coach.update()
    coach.wait(60)
    assert coach.status() == f"winnable: {len(line) - i} moves" and said == []
    execute(s, str(wrong))
    coach.update()
    coach.wait(60)
    assert said == [LOST_MOVE]
    assert coach.status() == "lost: 'undo 1' wins"


def _calculation_midgame(deal: int, placements: int):
    """A Calculation position some placements in (by the placing heuristic: cheap), the waste
    card showing: the blind player's estimate from there costs a fraction of the opening's."""
    from musical_cli.games.calculation.blind import heuristic_move, view_of

    game = game_named("calculation")
    state = game.opening(DealNumber(deal))
    made, moves = 0, []
    while made < placements or state.waste_top is None:
        move = DEAL if state.waste_top is None else heuristic_move(view_of(state))
        state = game.apply(state, move)
        moves.append(move)
        made += move != DEAL
    return game, state, moves


@pytest.mark.slow
def test_the_coach_never_reads_calculations_stock():
    """Two positions that differ only in the stock's order get the same estimate."""
    from dataclasses import replace

    from musical_cli.games.calculation.blind import blind_estimate

    _, state, _ = _calculation_midgame(3, 1)
    other = replace(state, stock=tuple(reversed(state.stock)))
    assert other != state
    assert blind_estimate(state, deals=4) == blind_estimate(other, deals=4)


@pytest.mark.slow
def test_calculations_estimate_is_the_blind_players():
    """From deal 1's opening the blind player (about 87% of deals won) wins most orders of the
    unseen cards; the placing heuristic the estimate once rolled out won about one in eight, and
    would fail this. Partial estimates come on the way; a stopped one ends with what it has."""
    from musical_cli.games.calculation.blind import ESTIMATE_BATCH, blind_estimate

    _, state, _ = _calculation_midgame(1, 0)
    heard: list[tuple[int, int]] = []
    wins, tries = blind_estimate(state, deals=2 * ESTIMATE_BATCH, partial=lambda w, n: heard.append((w, n)))
    assert tries == 2 * ESTIMATE_BATCH and wins >= tries // 2, (wins, tries)
    assert len(heard) == 1 and heard[0][1] == ESTIMATE_BATCH and heard[0][0] <= wins
    calls = []
    assert blind_estimate(state, stopped=lambda: calls.append(1) or len(calls) > 2)[1] == 2


@pytest.mark.slow
def test_the_coach_shows_calculations_estimate():
    from musical_cli.language import Session
    from musical_cli.live import Live

    assert Live("estimate", estimate=(8, 10), partial=True).text() == "estimate: 80% win (8 of 10...)"
    assert Live("estimate", estimate=(26, 30)).text() == "estimate: 87% win (26 of 30)"
    game, state, moves = _calculation_midgame(3, 30)
    s = Session(game, DealNumber(3))
    for move in moves:
        s.play(move, turn_up=False)
    assert s.state == state
    s.go_interactive()
    s.coach = True
    coach, said = _coach(s)
    coach.update()
    coach.wait(120)
    assert re.fullmatch(r"estimate: \d+% win \(\d+ of 30\)", coach.status()), coach.status()
    assert said == []  # an estimate never announces a loss


# --- winnable deals on request ---------------------------------------------------------------


class _Numbers:
    """secrets' randbelow, seeded: the random deals a test sees, and how many were drawn."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.drawn = []

    def randbelow(self, n):
        self.drawn.append(self.rng.randrange(n) + 1)
        return self.drawn[-1] - 1


@pytest.mark.parametrize("seed", range(6))
def test_winnable_deals_only_winnable_deals(seed, monkeypatch, capsys):
    from lines import run_main

    from musical_cli import deals

    numbers = _Numbers(seed)
    monkeypatch.setattr(deals, "secrets", numbers)
    # each deal searched within 2,000,000 nodes, not WINNABLE_LIMIT's seconds: the deals skipped
    # are then exactly the ones the solver does not win within that limit, on any machine
    real = advice.winnable_deal
    monkeypatch.setattr(advice, "winnable_deal",
                        lambda game, rules, numbers: real(game, rules, numbers, Limit(nodes=2_000_000)))
    status, out, err = run_main(["--winnable", "--redeals", "1"], "show\n", monkeypatch, capsys)
    assert status == 1, err  # batch mode: the game is not won
    deal = int(re.search(r"^deal (\d+)$", out, re.M).group(1))
    assert deal == numbers.drawn[-1]
    assert f"deal {deal} (dealt winnable)" in out
    assert solve(MUSICAL, MUSICAL.opening(DealNumber(deal), MusicalRules(1)), budget=None).result == "won"
    # the deals skipped were not proven winnable (at one redeal about two deals in three are lost)
    for skipped in numbers.drawn[:-1]:
        assert solve(MUSICAL, MUSICAL.opening(DealNumber(skipped), MusicalRules(1)), nodes=2_000_000,
                     budget=None).result != "won"


def test_winnable_skips_some_deals(monkeypatch, capsys):
    """Over the seeds above, some random deals were lost and skipped (else the test above
    could not fail)."""
    from lines import run_main

    from musical_cli import deals

    skipped = 0
    for seed in range(6):
        numbers = _Numbers(seed)
        monkeypatch.setattr(deals, "secrets", numbers)
        run_main(["--winnable", "--redeals", "1"], "show\n", monkeypatch, capsys)
        skipped += len(numbers.drawn) - 1
    assert skipped > 0


def test_no_winnable_deal_is_a_clear_message(monkeypatch, capsys):
    from lines import run_main

    status, out, err = run_main(["--winnable", "--redeals", "0"], "show\n", monkeypatch, capsys)
    assert status == 2 and "no deal proven winnable in 40 random deals of Musical (redeals 0)" in err
    status, out, err = run_main(["--winnable", "--seed", "3"], "", monkeypatch, capsys)
    assert status == 2 and "--winnable chooses the deal" in err


def test_new_winnable(monkeypatch):
    from musical_cli import deals
    from musical_cli.language import CommandError, Session, execute
    from musical_cli.render import plain

    monkeypatch.setattr(deals, "secrets", _Numbers(1))
    s = Session(MUSICAL, DealNumber(1), MusicalRules(1))
    out = plain(execute(s, "new --winnable").out)
    assert "dealt winnable" in out and "(dealt winnable)" in plain(s.layout())
    assert solve(MUSICAL, s.state, budget=None).result == "won"
    execute(s, "new 5")
    assert "dealt winnable" not in plain(s.layout())
    s = Session(MUSICAL, DealNumber(1), MusicalRules(0))
    with pytest.raises(CommandError, match="no deal proven winnable"):
        execute(s, "new --winnable")


# --- difficulty --------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_bands_split_a_sample_of_winnable_deals_in_about_thirds():
    """The bands were calibrated on deals 1-10,000 (docs/difficulty.md); deals 1-300 are a
    sample of them: each band holds about a third of the winnable ones."""
    import collections

    from musical_cli.advice import rating

    counts = collections.Counter(rating(MUSICAL, MUSICAL.default_rules(), MUSICAL.opening(DealNumber(d)))
                                 for d in range(1, 301))
    winnable = counts["easy"] + counts["medium"] + counts["hard"]
    assert winnable > 280
    for band in ("easy", "medium", "hard"):
        assert 0.22 < counts[band] / winnable < 0.45, counts


@pytest.mark.slow
def test_a_rating_is_the_measure_against_the_bands():
    from musical_cli.advice import band_of, difficulty_measure, rating

    bands = MUSICAL.difficulty_bands()[MUSICAL.default_rules()]
    for d in (1, 2, 5, 409):
        state = MUSICAL.opening(DealNumber(d))
        result, nodes = difficulty_measure(MUSICAL, state)
        assert rating(MUSICAL, MUSICAL.default_rules(), state) == (band_of(nodes, bands) if result == WON else result)
    assert rating(MUSICAL, MUSICAL.default_rules(), MUSICAL.opening(DealNumber(409))) == "lost"
    unlimited = MusicalRules(None)  # not calibrated
    assert rating(MUSICAL, unlimited, MUSICAL.opening(DealNumber(1), unlimited)) is None


@pytest.mark.slow
def test_musical_deal_shows_the_difficulty(monkeypatch, capsys):
    import json

    from lines import run_main

    from musical_cli.advice import rating

    want = rating(MUSICAL, MUSICAL.default_rules(), MUSICAL.opening(DealNumber(5)))
    status, out, _ = run_main(["deal", "5"], "", monkeypatch, capsys)
    assert status == 0 and f"difficulty: {want}" in out
    status, out, _ = run_main(["deal", "--json", "5", "409"], "", monkeypatch, capsys)
    first, second = (json.loads(x) for x in out.splitlines())
    assert first["difficulty"] == want and second["difficulty"] == "lost"
    status, out, _ = run_main(["deal", "--redeals", "unlimited", "5"], "", monkeypatch, capsys)
    assert "difficulty" not in out


@pytest.mark.parametrize("wanted", ["easy", "hard"])
def test_new_difficulty_deals_a_deal_of_that_rating(wanted, monkeypatch):
    from musical_cli import deals
    from musical_cli.advice import rating
    from musical_cli.language import Session, execute

    monkeypatch.setattr(deals, "secrets", _Numbers(7))
    s = Session(MUSICAL, DealNumber(1))
    execute(s, f"new --difficulty {wanted}")
    assert s.difficulty == wanted
    assert rating(MUSICAL, s.rules, s.states[0]) == wanted


def test_difficulty_errors(monkeypatch, capsys):
    from lines import run_main

    from musical_cli.language import CommandError, Session, execute

    with pytest.raises(CommandError, match="one of easy, medium, hard, lost"):
        execute(Session(MUSICAL, DealNumber(1)), "new --difficulty tricky")
    with pytest.raises(CommandError, match="deals of Musical with unlimited redeals are not rated; those of Musical"):
        execute(Session(MUSICAL, DealNumber(1), MusicalRules(None)), "new --difficulty hard")
    status, _, err = run_main(["--difficulty", "hard", "--redeals", "unlimited"], "", monkeypatch, capsys)
    assert status == 2 and "are not rated" in err


def test_a_long_range_of_deals_is_not_rated(monkeypatch, capsys):
    from lines import run_main

    status, out, _ = run_main(["deal", "1-11"], "", monkeypatch, capsys)
    assert status == 0 and "difficulty" not in out
    status, out, _ = run_main(["deal", "1-10"], "", monkeypatch, capsys)
    assert out.count("difficulty: ") == 10


def test_the_review_command_reports_its_progress_as_a_review():
    """The shell's line while a review runs counts positions decided, in those words: it once went
    through the search's "searching: N positions", showing "0 positions" for a review."""
    from musical_cli.language import Session, execute

    s = Session(MUSICAL, DealNumber(4), MusicalRules(1))
    execute(s, "d; d; d")
    shown: list[str] = []
    s.front = Unattended(text_progress=shown.append)
    execute(s, "review")
    assert shown and all(re.fullmatch(r"reviewing: \d+ of 4 positions decided, \d+\.\d s \(Ctrl-C stops\)", t)
                         for t in shown), shown


@pytest.mark.slow
def test_musical_review_on_a_terminal_draws_its_line_without_escape_codes(tmp_path):
    """``musical review`` at a terminal: the progress line, then wiped with spaces (a dumb terminal
    shows an escape code as garbage), and nothing of it on standard output."""

    terminal = pytest.importorskip("terminal")  # (needs pexpect)
    pexpect = terminal.pexpect
    # Calculation with 3 piles, deal 21: undecided at 200,000,000 nodes, so each position of the
    # review takes the search its time and the line is drawn.
    path = tmp_path / "g.txt"
    path.write_text("format: musical-transcript 1\ngame: calculation\ndeal: 21\npiles: 3\nd\n")
    out = tmp_path / "out"
    child = terminal.spawn("review", str(path), env=terminal.child_env(TERM="dumb"), stdout=out, timeout=60)
    child.expect(pexpect.EOF)
    child.close()
    err = child.before
    assert child.exitstatus == 0, (err, out.read_text())
    drawn = re.findall(r"\rreviewing: \d+ of 2 positions decided, \d+\.\d s \(Ctrl-C stops\)", err)
    assert drawn, repr(err)
    assert err.endswith("\r" + " " * (max(len(d) - 1 for d in drawn) + 2) + "\r")  # and a "^C" echo
    assert "\x1b" not in err and "reviewing" not in out.read_text()


def test_a_review_in_steps_joins_each_card_turned_up_to_the_move_before_it():
    """Calculation's shell turns the next card up after each placement: its review shows one row
    a placement (numbered as the status line counts), the verdict after it the one after the card
    it turned up; a move taken back and made again keeps its number."""
    from musical_cli.advice import Ply, Review
    from musical_cli.moves import DEAL
    from musical_cli.notation import parse_move

    wp = {n: parse_move(f"w p{n}") for n in (1, 2, 3)}
    plies = (Ply(1, DEAL, WON, WON), Ply(2, wp[1], WON, WON), Ply(3, DEAL, WON, WON),
             Ply(4, wp[2], WON, WON, undone=True), Ply(5, DEAL, WON, LOST, undone=True),
             Ply(4, wp[3], WON, UNKNOWN), Ply(5, DEAL, UNKNOWN, UNKNOWN))
    got = Review(plies, WON).in_steps(lambda m: m != DEAL)
    assert [(p.ply, str(p.move), p.before, p.after, p.undone) for p in got.plies] == [
        (1, "w p1", WON, WON, False), (2, "w p2", WON, LOST, True), (2, "w p3", WON, UNKNOWN, False)]
    assert [(p.ply, str(p.move)) for p in got.losing] == [(2, "w p2")]  # the step that lost it
    same = Review(plies, WON).in_steps(lambda m: True)
    assert same.plies == plies  # where every move is the player's, nothing changes


@pytest.mark.skipif(CALCULATION_CORE is None, reason="deal 1's win takes the Python search some 140 s, past solve's budget")
def test_calculations_solve_in_the_shell_gives_a_line_the_shell_takes():
    """The shell makes Calculation's 'd' moves itself and refuses them typed: 'solve' shows the
    line without them (it once showed 'w p1 d w f1 d ...', which could not be typed), and that
    line, typed, wins; 'review' numbers the moves as the status line does."""
    from musical_cli.language import Session, execute
    from musical_cli.render import plain

    calculation = game_named("calculation")
    s = Session(calculation, DealNumber(1), interactive=True)
    out = plain(execute(s, "solve").out)
    head, *rows = out.splitlines()
    assert re.fullmatch(r"a win in \d+ moves:", head), out
    count = int(head.split()[3])
    moves = " ".join(rows).split()
    line = [f"{a} {b}" for a, b in zip(moves[::2], moves[1::2], strict=True)]
    assert len(line) == count and "d" not in moves
    execute(s, "; ".join(line))
    assert s.outcome() is Outcome.WON and s.move_count == count
    t = Session(calculation, DealNumber(1), interactive=True)
    execute(t, "; ".join(line[:3]))
    rows = [r for r in plain(execute(t, "review").out).splitlines() if re.match(r"\s+\d+\. ", r)]
    assert [r.split()[:3] for r in rows] == [[f"{i + 1}.", *m.split()] for i, m in enumerate(line[:3])]


def test_the_coach_says_so_when_a_game_it_left_undecided_is_lost():
    """A loss found after a position the coach left undecided is said in a line once its undo is
    known (it was only in the status line: a new-user audit missed it), and not again from a
    position proven lost."""
    from musical_cli.language import Session, execute
    from musical_cli.live import lost_now

    rules, line, i, wrong = _deal4_lost()
    s = Session(MUSICAL, DealNumber(4), rules, interactive=True)
    s.coach = True
    coach, said = _coach(s)
    execute(s, "; ".join(str(m) for m in line[:i]))
    s.memory.solved[s.state] = advice.Verdict(UNKNOWN)  # as if its search had run out of time there
    coach.update()
    coach.wait(60)
    assert coach.status() == "undecided" and said == []
    execute(s, str(wrong))
    coach.update()
    coach.wait(60)
    assert coach.status() == "lost: 'undo 1' wins"
    assert said == [lost_now(1)] == ["the game is lost now: 'undo 1' gets back to a position that can be won"]
    execute(s, str(MUSICAL.legal_moves(s.state)[0]))
    coach.update()
    coach.wait(60)
    assert coach.status().startswith("lost") and len(said) == 1


def test_the_coach_says_won_once_the_game_is_won():
    from musical_cli.language import Session, execute
    from musical_cli.live import Live

    assert Live("won", moves=0).text() == "won" and Live("won", moves=1).text() == "winnable: 1 move"
    s = Session(MUSICAL, DealNumber(4), MusicalRules(1), interactive=True)
    line = _line(MUSICAL, s.state)
    execute(s, "; ".join(str(m) for m in line))
    assert s.outcome() is Outcome.WON
    s.coach = True
    coach, _ = _coach(s)
    coach.update()
    coach.wait(60)
    assert coach.status() == "won"  # it said "winnable: 0 moves"


def test_a_stopped_review_says_it_was_stopped():
    from musical_cli.advice import Ply, Review
    from musical_cli.advice_commands import review_summary
    from musical_cli.moves import DEAL

    plies = (Ply(1, DEAL, WON, UNKNOWN),)
    stopped = [t for t, _ in review_summary(Review(plies, WON, stopped=True), MUSICAL)]
    assert stopped[0] == "stopped: the verdicts found so far."
    # some may have run out of time before the Ctrl-C: both are said
    assert "(the search ran out of time, or the review was stopped)" in stopped[1]
    timed = [t for t, _ in review_summary(Review(plies, WON), MUSICAL)]
    assert "(the search ran out of time)" in timed[0]


def test_a_loaded_calculation_line_that_ends_on_a_placement_turns_the_next_card_up(tmp_path):
    """A transcript from batch mode may end on a placement, the waste empty: the shell turns the
    next card up, as after any placement (with that move's step), so the line 'solve' shows
    (without the d's the shell makes) can be typed; the review's reviewer found it could not."""
    from musical_cli.language import Session, execute
    from musical_cli.render import plain

    path = tmp_path / "g.txt"
    path.write_text("format: musical-transcript 1\ngame: calculation\ndeal: 1\nd\nw p1\n")
    s = Session(game_named("calculation"), DealNumber(1), interactive=True)
    assert plain(execute(s, f"load {path}").out).strip() == f"loaded deal 1, 1 move and 2 cards turned up, from {path}"
    assert [str(m) for m in s.moves] == ["d", "w p1", "d"] and s.state.waste_top is not None
    execute(s, "undo")
    assert [str(m) for m in s.moves] == ["d"]  # the placement and its card, one step
    batch = Session(game_named("calculation"), DealNumber(1))
    execute(batch, f"load {path}")
    assert [str(m) for m in batch.moves] == ["d", "w p1"]  # batch mode turns nothing by itself


def test_the_coachs_lost_now_line_tells_a_deal_lost_from_its_start():
    from musical_cli.live import lost_now

    assert "even from its start" in lost_now(None)
    assert "in time" in lost_now(-1) and "'undo 3'" in lost_now(3)


def test_the_review_of_a_won_game_ends_on_won(node_reviews):
    """Its last move's position is the win itself: "won", not "winnable" (new-user audit)."""
    from musical_cli.language import Session, execute
    from musical_cli.render import plain

    s = Session(MUSICAL, DealNumber(4), MusicalRules(1), interactive=True)
    execute(s, "; ".join(str(m) for m in _line(MUSICAL, s.state)))
    rows = [r for r in plain(execute(s, "review").out).splitlines() if re.match(r"\s+\d+\. ", r)]
    assert rows[-1].split()[-2:] == ["winnable", "won"] and all(r.split()[-1] != "won" for r in rows[:-1])


def test_the_coach_says_lost_of_a_calculation_game_that_is_over():
    """Once no move is left the game is lost in plain sight: "lost", not "estimate: 0% win (0 of
    30)" (seen at 80x24)."""
    from musical_cli.language import Session, execute

    s = Session(game_named("calculation"), DealNumber(7), interactive=True)
    execute(s, "; ".join(["w p1"] * 48))
    assert s.outcome() is Outcome.LOST
    s.coach = True
    coach, said = _coach(s)
    coach.update()
    coach.wait(60)
    assert coach.status() == "lost" and said == []


def test_with_the_coach_off_the_shell_thinks_unseen_and_hint_finds_its_verdict(monkeypatch):
    """The coach's search runs beside the prompt with the coach off too: it says nothing and
    shows nothing, but its verdict is the session's, so that 'hint' answers from it at once."""
    from musical_cli.language import Session, execute

    s = Session(MUSICAL, DealNumber(1), interactive=True)
    coach, said = _coach(s)
    coach.update()
    coach.wait(60)
    assert coach.status() == "" and not said  # unseen
    assert s.memory.solved.get(s.state) is not None and s.memory.solved[s.state].result == WON

    def no_search(*args, **kwargs):
        raise AssertionError("hint searched again")

    monkeypatch.setattr(advice, "analyse", no_search)
    assert plain(execute(s, "hint").out).startswith("hint: ")
    assert not s.coached  # nothing was shown: the game is the player's own


def test_an_undecided_hint_still_names_a_move_and_says_it_is_a_guess(monkeypatch):
    """Where the search proves nothing in its second, 'hint' gives the move a player would try,
    said plainly as not proven; never only 'undecided' while a move is legal."""
    from musical_cli.language import Session, execute

    monkeypatch.setattr(advice, "decide", lambda asker, state, budget: advice.Verdict(UNKNOWN))
    for game, deal in ((MUSICAL, 1), (game_named("crazy-quilt"), 21)):
        s = Session(game, DealNumber(deal))
        out = plain(execute(s, "hint").out)
        first = out.splitlines()[0]
        assert first.startswith("hint: ") and "a guess, not proven" in first, out
        move = first.removeprefix("hint: ").split("  (")[0]
        assert move in {str(m) for m in game.legal_moves(s.state)}
        assert "undecided" in first and "search longer" in out


def test_the_guess_prefers_a_move_that_does_not_lose_at_once():
    """Over random games of Musical without redeals, of Calculation and of Crazy Quilt, the guess
    never loses at once where another move does not, and builds the most of the moves that do
    not. Positions where the game's first legal move would lose at once come up (Calculation's
    deals 2 and 9, Crazy Quilt's 187 in these games)."""
    rng = random.Random(1)
    tested = 0
    for name, rules, deals in (("musical", MusicalRules(0), range(1, 40)), ("calculation", None, range(1, 12)),
                               ("crazy-quilt", None, range(185, 189))):
        game = game_named(name)
        for deal in deals:
            state = game.opening(DealNumber(deal), rules if rules is not None else game.default_rules())
            for _ in range(300):
                if game.outcome(state) is not Outcome.IN_PLAY:
                    break
                legal = game.legal_moves(state)
                lose = [game.outcome(game.apply(state, m)) is Outcome.LOST for m in legal]
                guess = advice.guess(game, state)
                assert guess in legal
                if not all(lose):
                    tested += lose[0]  # the first move would lose at once; the guess must not
                    assert game.outcome(game.apply(state, guess)) is not Outcome.LOST
                    left = [game.cards_to_build(game.apply(state, m)) for m, lost in zip(legal, lose, strict=True) if not lost]
                    assert game.cards_to_build(game.apply(state, guess)) == min(left)
                state = game.apply(state, rng.choice(legal))
    assert tested > 0
