"""The Crazy Quilt solver against plain exhaustive search over the engine, on small synthetic
quilts and near the end of real deals, for Crazy Quilt, Indian Carpet, Persian Rug and wrap;
each pruning rule switched off gives the same verdicts; safe moves keep a won position won; the
greedy player; the budget. No test asserts a wall-clock time."""

from __future__ import annotations

import random

import pytest

from musical_cli.cards import SUITS, Card
from musical_cli.deals import DealNumber
from musical_cli.game import IllegalMove, Outcome
from musical_cli.games.crazy_quilt import solver
from musical_cli.games.crazy_quilt.rules import CRAZY_QUILT, CrazyQuiltRules, CrazyQuiltState
from musical_cli.games.crazy_quilt.solver import (
    CLOCK_EVERY,
    Search,
    greedy_move,
    greedy_wins,
    safe_moves,
    search,
)
from musical_cli.moves import DEAL, Transfer

GAME = CRAZY_QUILT


def arrangement(state: CrazyQuiltState):
    """The position with the reserves in no particular order (they are interchangeable)."""
    return (state.foundations, state.quilt, state.stock, state.waste, state.redeals_used,
            tuple(sorted(tuple(c.sort_key() for c in r) for r in state.reserves)))


def brute_force(state: CrazyQuiltState, limit: int = 200_000) -> str | None:
    """Plain exhaustive search over legal_moves/apply: is a won position reachable? None when more
    than ``limit`` positions would have to be seen."""
    seen = set()
    todo = [state]
    while todo:
        s = todo.pop()
        key = arrangement(s)
        if key in seen:
            continue
        seen.add(key)
        if len(seen) > limit:
            return None
        if s.complete:
            return "won"
        todo.extend(GAME.apply(s, m) for m in GAME.legal_moves(s))
    return "lost"


def synthetic(seed: int, rules: CrazyQuiltRules, left: int = 8, cluster: bool = True) -> CrazyQuiltState:
    """A small position: foundations built so that about ``left`` cards remain, scattered over a
    few neighbouring quilt cells (so that they cover each other), the stock and the waste, or the
    reserves."""
    rng = random.Random(seed)
    counts = [0, 0, 0, 0]
    # Two suits only, their cards waiting for each other; all four in Persian Rug, where a top
    # of another suit is what blocks a reserve.
    suits = range(4) if rules.reserves else rng.sample(range(4), 2)
    for _ in range(left):
        counts[rng.choice(suits)] += 1
    counts = [min(c, 5) for c in counts]
    foundations_up, foundations_down, rest = [], [], []
    for s, suit in enumerate(SUITS):
        k = counts[s]
        u = rng.randint(13 - k, 13) if k <= 12 else 13
        d = u - 12 + k
        foundations_up.append(tuple(Card(r, suit) for r in range(1, u + 1)))
        foundations_down.append(tuple(Card(r, suit) for r in range(13, d - 1, -1)))
        for r in range(1, 14):
            rest += [Card(r, suit)] * (2 - (r <= u) - (r >= d))
    rng.shuffle(rest)
    corner = rng.randrange(6) * 8 + rng.randrange(6)  # a 3x3 block somewhere: cards cover each other
    cells = [corner + 8 * r + c for r in range(3) for c in range(3)] if cluster else list(range(64))
    rng.shuffle(cells)
    quilt: list[Card | None] = [None] * 64
    stock, waste = [], []
    reserves: list[list[Card]] = [[] for _ in range(8)]
    if rules.reserves:
        # Every reserve holds a card, or reserve shuffles make almost every position a win.
        for j in range(min(8, len(rest))):
            reserves[j].append(rest.pop())
    for card in rest:
        where = rng.random()
        if where < 0.5 and cells:
            quilt[cells.pop()] = card
        elif rules.reserves:
            reserves[rng.randrange(8)].append(card)
        elif where < 0.75:
            stock.append(card)
        else:
            waste.append(card)
    used = rng.randint(0, rules.redeals)
    return CrazyQuiltState(rules, tuple(foundations_up) + tuple(foundations_down), tuple(quilt),
                           tuple(stock), tuple(waste), tuple(map(tuple, reserves)) if rules.reserves else (),
                           used)


RULES = [CrazyQuiltRules(0), CrazyQuiltRules(1), CrazyQuiltRules(2), CrazyQuiltRules(1, wrap=True),
         CrazyQuiltRules(reserves=True), CrazyQuiltRules(reserves=True, wrap=True)]


def verdict(state: CrazyQuiltState, **switches) -> str:
    """The search's verdict with some rules switched off (``safe``, ``stuck_rule``, ``relax_rule``,
    ``geo_rule``, ``suit_rule``, ``joint_rule``, ``prefilter``, ``order``)."""
    if GAME.outcome(state) is not Outcome.IN_PLAY:
        return "won" if state.complete else "lost"
    s = Search(state)
    for name, value in switches.items():
        setattr(s, name, value)
    result, line = s.run()
    if result == "won":
        assert GAME.outcome(GAME.play(state, [solver.to_move(m) for m in line])) is Outcome.WON
    return result


def check(state: CrazyQuiltState) -> str | None:
    expected = brute_force(state)
    if expected is None:
        return None
    got, moves, _ = search(state, budget=None)
    assert got == expected, state
    if got == "won":
        assert GAME.outcome(GAME.play(state, moves)) is Outcome.WON
    # Each rule off: the same verdict (a rule that changed one would be unsound or incomplete).
    assert verdict(state, safe=False) == expected
    assert verdict(state, stuck_rule=False) == expected
    assert verdict(state, relax_rule=False) == expected
    assert verdict(state, geo_rule=False) == expected
    assert verdict(state, suit_rule=False) == expected
    assert verdict(state, joint_rule=False) == expected
    assert verdict(state, prefilter=False) == expected
    assert verdict(state, order=False, safe=False, stuck_rule=False, relax_rule=False, geo_rule=False,
                   suit_rule=False, joint_rule=False, prefilter=False) == expected
    return expected


@pytest.mark.parametrize("rules", [pytest.param(r, marks=pytest.mark.slow) if r.reserves else r for r in RULES],
                         ids=lambda r: f"{r.redeals}{'w' if r.wrap else ''}{'r' if r.reserves else ''}")
def test_solver_against_brute_force_on_small_quilts(rules):
    seen = {"won": 0, "lost": 0}
    # Persian Rug's reserve shuffles make brute force slow, and small rugs are almost all won
    # (lost rugs come from real deals below, and from test_persian_rug_lost_by_hand).
    for seed in range(6 if rules.reserves else 30):
        got = check(synthetic(seed, rules, left=(8 if rules.reserves else 9) + seed % 6))
        if got:
            seen[got] += 1
    # The sample must hold both verdicts, or it tests little.
    assert seen["won"] >= 3 and (rules.reserves or seen["lost"] >= 3), seen


def winning_line(n: int, rules: CrazyQuiltRules) -> tuple:
    # A node limit (far more than these deals take: 1,729 nodes at most) so that a slower solver
    # fails, not hangs, on any machine.
    result, moves, _ = search(GAME.opening(DealNumber(n), rules), None, nodes=100_000)
    assert result == "won"
    return moves


NEAR_END = [(2, CrazyQuiltRules(2)), (4, CrazyQuiltRules(2)), (9, CrazyQuiltRules(1)), (11, CrazyQuiltRules(1)),
            (3, CrazyQuiltRules(reserves=True))]


@pytest.mark.slow
def test_solver_against_brute_force_near_the_end_of_real_deals():
    """Positions a few moves from the end of a won line, and a few random moves off it (often
    lost)."""
    seen = {"won": 0, "lost": 0}
    for n, rules in NEAR_END:
        start = GAME.opening(DealNumber(n), rules)
        moves = winning_line(n, rules)
        rng = random.Random(n)
        most = 11 if rules.reserves else 16
        for back in range(4, 80, 5):
            if back > len(moves):
                break
            state = GAME.play(start, moves[:-back])
            if GAME.cards_to_build(state) > most:
                continue
            assert check(state) in ("won", None)
            for _ in range(2):
                off = state
                for _ in range(rng.randint(1, 5)):
                    legal = GAME.legal_moves(off)
                    if not legal:
                        break
                    off = GAME.apply(off, rng.choice(legal))
                got = check(off)
                if got:
                    seen[got] += 1
    assert seen["won"] >= 10 and seen["lost"] >= 3, seen


def test_stuck_rule_proves_losses_and_no_wins():
    """Rule 4 (last pass, a waste card stuck for ever) fires on lost positions only."""
    fired = 0
    for seed in range(200):
        state = synthetic(seed, CrazyQuiltRules(0), left=8)
        s = Search(state)
        if s.root[1] and s.stuck(s.root):
            fired += 1
            assert brute_force(state) == "lost"
    assert fired >= 5


@pytest.mark.parametrize("redeals", [0, 1, 2])
def test_relaxation_proves_losses_and_no_wins(redeals):
    """Rule 6 (the relaxation: quilt cards free, one copy fills its rank's slot on every
    foundation that may take it, the waste and stock dealt in their order) fires on lost
    positions only, and fires often: it must prove losses, not merely be sound."""
    fired = 0
    for seed in range(150):
        state = synthetic(5000 + seed, CrazyQuiltRules(redeals), left=9)
        s = Search(state)
        if s.relax_fails(s.root):
            fired += 1
            assert brute_force(state) == "lost", seed
    assert fired >= 10, fired


@pytest.mark.parametrize("redeals", [0, 1, 2])
def test_geometry_relaxation_proves_losses_and_no_wins(redeals):
    """Rule 7 (rule 6 with the quilt's geometry: a quilt card leaves its cell only when it is
    available, for a foundation or onto a card that may be the waste top) fires on lost positions
    only, among them positions that rule 6 passes."""
    fired = 0
    for seed in range(400):
        state = synthetic(8000 + seed, CrazyQuiltRules(redeals), left=14)
        if GAME.outcome(state) is not Outcome.IN_PLAY:
            continue
        s = Search(state)
        if not s.relax_fails(s.root) and s.geo_fails(s.root):
            fired += 1
            assert brute_force(state, 300_000) == "lost", seed
    assert fired >= 3, fired


def random_game(seed: int, rules: CrazyQuiltRules) -> list[CrazyQuiltState]:
    """The positions of a game of random legal moves from an opening (a random game soon loses,
    so most of them are lost, many near their end)."""
    rng = random.Random(seed)
    state = GAME.opening(DealNumber(1 + seed % 1000), rules)
    states = [state]
    while len(states) < 200:
        legal = GAME.legal_moves(state)
        if not legal:
            break
        state = GAME.apply(state, rng.choice(legal))
        states.append(state)
    return states


@pytest.mark.parametrize("rules", [CrazyQuiltRules(0), pytest.param(CrazyQuiltRules(1), marks=pytest.mark.slow),
                                   pytest.param(CrazyQuiltRules(2), marks=pytest.mark.slow),
                                   pytest.param(CrazyQuiltRules(1, wrap=True), marks=pytest.mark.slow)], ids=str)
def test_geometry_relaxation_proves_all_that_the_relaxation_proves(rules):
    """Rule 7 proves lost every position rule 6 proves lost (the module docstring's argument),
    which is why the search runs rule 6 only while rule 7 is off: on positions of random games
    and synthetic ones, each with its children, wherever rule 6 fires rule 7 does too."""
    fired = 0
    for seed in range(12):
        states = random_game(seed, rules)[::3] + [synthetic(9000 + seed * 7 + k, rules, left=12) for k in range(7)]
        for state in states:
            if GAME.outcome(state) is not Outcome.IN_PLAY:
                continue
            s = Search(state)
            for st in [s.root] + [kid for _, kid in s.children(s.root)]:
                if s.relax_fails(st):
                    fired += 1
                    assert s.geo_fails(st), (state, st)
    assert fired >= 100, fired


def suit_game_brute_force(seq: tuple, k: int, pool: dict, u: int, d: int, left: int) -> bool:
    """Rule 8's game of one suit searched plainly (every move, no move played at once, the pool
    a dict of counts): whether it can be won."""
    seen = set()
    todo = [(seq, k, tuple(sorted(pool.items())), u, d, left)]
    while todo:
        state = todo.pop()
        if state in seen:
            continue
        seen.add(state)
        seq, k, pool, u, d, left = state
        if u == 13 and d == 1:
            return True
        counts = dict(pool)
        for rank, dest in ((u + 1, "u"), (d - 1, "d")):
            nu, nd = (u + 1, d) if dest == "u" else (u, d - 1)
            if not 1 <= rank <= 13:
                continue
            if k and seq[k - 1] == rank:
                todo.append((seq[:k - 1] + seq[k:], k - 1, pool, nu, nd, left))
            if counts.get(rank):
                less = dict(counts)
                less[rank] -= 1
                todo.append((seq, k, tuple(sorted((r, n) for r, n in less.items() if n)), nu, nd, left))
        if k < len(seq):
            todo.append((seq, k + 1, pool, u, d, left))
        elif k and left:
            todo.append((seq, 0, pool, u, d, left - 1))
    return False


def suit_games(state: CrazyQuiltState):
    """Each suit's game of rule 8 for ``state``, as the brute force's arguments."""
    for s, suit in enumerate(SUITS):
        waste = tuple(c.rank for c in state.waste if c.suit == suit)
        stock = tuple(c.rank for c in state.stock if c.suit == suit)
        pool: dict[int, int] = {}
        for c in state.quilt:
            if c is not None and c.suit == suit:
                pool[c.rank] = pool.get(c.rank, 0) + 1
        yield (waste + stock, len(waste), pool, len(state.foundations[s]), 14 - len(state.foundations[4 + s]),
               state.redeals_left)


@pytest.mark.parametrize("redeals", [0, 1, 2])
def test_suit_games_against_brute_force(redeals):
    """Rule 8's search of a suit's game (suit_won, with its moves played at once and its memo)
    gives plain exhaustive search's verdict, on the suits of small positions and of positions
    of real games, both verdicts among them."""
    seen = {True: 0, False: 0}
    states = [synthetic(9000 + seed, CrazyQuiltRules(redeals), left=12) for seed in range(80)]
    for n in range(1, 6):
        state = GAME.opening(DealNumber(n), CrazyQuiltRules(redeals))
        rng = random.Random(n)
        for _ in range(30):
            legal = GAME.legal_moves(state)
            if not legal:
                break
            state = GAME.apply(state, rng.choice(legal))
        states.append(state)
    for state in states:
        for seq, k, pool, u, d, left in suit_games(state):
            packed = sum(n << 2 * r for r, n in pool.items())
            got = solver.suit_won(bytes(seq), k, packed, u, d, min(left, solver.SUIT_PASSES_MAX), {})
            assert got == suit_game_brute_force(seq, k, pool, u, d, left), (seq, k, pool, u, d, left)
            seen[got] += 1
    assert seen[True] >= 50 and seen[False] >= 10, seen


def fires_on_losses_only(rule: str, seeds, redeals: int) -> int:
    """How often the rule (a Search method: suit_fails, joint_fails) proves the synthetic positions
    of ``seeds`` lost, each time checked against brute force."""
    fired = 0
    for seed in seeds:
        state = synthetic(seed, CrazyQuiltRules(redeals), left=12)
        if GAME.outcome(state) is not Outcome.IN_PLAY:
            continue
        s = Search(state)
        if getattr(s, rule)(s.root):
            fired += 1
            assert brute_force(state, 300_000) == "lost", seed
    return fired


@pytest.mark.parametrize("redeals", [0, 1, 2])
def test_suit_games_prove_losses_and_no_wins(redeals):
    """Rule 8 (a suit's own game cannot be won) fires on lost positions only, and fires often,
    on small positions of two suits."""
    assert fires_on_losses_only("suit_fails", range(11000, 11150), redeals) >= 10


def scattered(rng: random.Random, rules: CrazyQuiltRules, heights: list[tuple[int, int]], quilt_to: float,
              stock_to: float) -> CrazyQuiltState:
    """The position whose foundations stand at ``heights`` (each suit's up and down tops), the
    cards still to place shuffled and scattered: a card in the quilt when a draw is under
    ``quilt_to``, else in the stock under ``stock_to``, else on the waste; the redeals left drawn."""
    ups, downs, rest = [], [], []
    for suit, (u, d) in zip(SUITS, heights, strict=True):
        ups.append(tuple(Card(r, suit) for r in range(1, u + 1)))
        downs.append(tuple(Card(r, suit) for r in range(13, d - 1, -1)))
        for r in range(1, 14):
            rest += [Card(r, suit)] * (2 - (r <= u) - (r >= d))
    rng.shuffle(rest)
    quilt: list[Card | None] = [None] * 64
    stock, waste = [], []
    cells = rng.sample(range(64), 64)
    for card in rest:
        where = rng.random()
        if where < quilt_to:
            quilt[cells.pop()] = card
        elif where < stock_to:
            stock.append(card)
        else:
            waste.append(card)
    return CrazyQuiltState(rules, tuple(ups) + tuple(downs), tuple(quilt), tuple(stock), tuple(waste), (),
                           rng.randint(0, rules.redeals))


def one_suit(seed: int, rules: CrazyQuiltRules, left: int) -> CrazyQuiltState:
    """A position where one suit alone has ``left`` cards to place (the others are complete),
    scattered over the quilt, the stock and the waste: a suit with many cards in play, where
    the two copies of a rank and their order matter (synthetic()'s suits have at most 5)."""
    rng = random.Random(seed)
    s0 = rng.randrange(4)
    heights = []
    for s in range(4):
        u, d = (13, 1) if s != s0 else (rng.randint(max(1, 13 - left), 13), 0)
        if s == s0:
            d = max(1, min(13, u - 12 + left))
        heights.append((u, d))
    return scattered(rng, rules, heights, 0.3, 0.8)


@pytest.mark.slow
@pytest.mark.parametrize(("redeals", "seeds"), [(1, range(280, 300)), (2, range(0, 25))])
def test_suit_games_prove_what_rules_6_and_7_do_not(redeals, seeds):
    """Where rule 8 fires and rules 4, 6 and 7 do not (one suit with 20 cards in play), plain
    exhaustive search finds no win either."""
    proved = 0
    for seed in seeds:
        state = one_suit(seed, CrazyQuiltRules(redeals), 20)
        s = Search(state)
        if GAME.outcome(state) is not Outcome.IN_PLAY or not s.suit_fails(s.root):
            continue
        s.suit_rule = False
        s.joint_rule = False  # rule 9 sees a suit's own game too (with one suit, it is that game)
        if s.rules_fail(s.root):
            continue
        truth = brute_force(state, 300_000)
        assert truth != "won", seed
        proved += truth == "lost"
    assert proved >= 2, proved


def two_suits(seed: int, rules: CrazyQuiltRules, both: int, share: float = 0.25) -> CrazyQuiltState:
    """A position where two suits each have up to ``both`` ranks that both their foundations
    still need (the others are complete; so 14 cards or more of each to place), scattered over
    the quilt, the stock and the waste: which copy goes where, the order of the waste and what
    one suit's card on it blocks of the other's all matter (rule 9's game). ``share``: of the
    cards, about that share in the quilt."""
    rng = random.Random(seed)
    busy = rng.sample(range(4), 2)
    heights = []
    for s in range(4):
        u, d = 13, 1
        if s in busy:
            u = rng.randint(6, 11)
            d = min(13, u + 1 + rng.randint(1, both))
        heights.append((u, d))
    return scattered(rng, rules, heights, share, share + (1 - share) * 0.7)


def joint_game_brute_force(state: CrazyQuiltState) -> bool:
    """Rule 9's game by plain exhaustive search: the quilt's cards a pool any of which may go to
    a foundation that wants it at any time, the waste top likewise, deals and redeals; no
    builds. Whether every card can be placed."""
    code = solver.code
    up0 = tuple(len(state.foundations[s]) for s in range(4))
    down0 = tuple(14 - len(state.foundations[4 + s]) for s in range(4))
    start = (tuple(map(code, state.waste)), tuple(map(code, state.stock)),
             tuple(sorted(code(c) for c in state.quilt if c is not None)), up0, down0, state.redeals_left)
    seen = set()
    todo = [start]
    while todo:
        st = todo.pop()
        if st in seen:
            continue
        seen.add(st)
        waste, stock, pool, up, down, left = st
        if up == (13,) * 4 and down == (1,) * 4:
            return True
        for s in range(4):
            for f, want in ((0, s * 16 + up[s] + 1), (1, s * 16 + down[s] - 1)):
                if (f == 0 and up[s] == 13) or (f == 1 and down[s] == 1):
                    continue
                nu, nd = list(up), list(down)
                if f == 0:
                    nu[s] += 1
                else:
                    nd[s] -= 1
                if waste and waste[-1] == want:
                    todo.append((waste[:-1], stock, pool, tuple(nu), tuple(nd), left))
                if want in pool:
                    rest = list(pool)
                    rest.remove(want)
                    todo.append((waste, stock, tuple(rest), tuple(nu), tuple(nd), left))
        if stock:
            todo.append((waste + stock[:1], stock[1:], pool, up, down, left))
        elif waste and left:
            todo.append(((), waste, pool, up, down, left - 1))
    return False


def joint_positions(redeals: int):
    """Rule 9's test positions: small ones of two suits, and two suits each with two to four
    ranks that both foundations need, half their cards in the quilt."""
    rules = CrazyQuiltRules(redeals)
    for seed in range(40):
        yield synthetic(13000 + seed, rules, left=12)
    for seed in range(40):
        yield two_suits(14000 + seed, rules, 2 + seed % 3, 0.5)


@pytest.mark.slow
@pytest.mark.parametrize("redeals", [0, 1, 2])
def test_joint_game_against_brute_force(redeals, monkeypatch):
    """Rule 9's search of the joint game (the eager runs of fixed choices, refined where a card
    filled two slots, with backjumping) gives plain exhaustive search's verdict of that game,
    both verdicts among them, many only after branching."""
    monkeypatch.setattr(solver, "JOINT_CAP", 10**7)
    seen = {True: 0, False: 0}
    branched = 0
    for state in joint_positions(redeals):
        if GAME.outcome(state) is not Outcome.IN_PLAY:
            continue
        s = Search(state)
        codes, twin = s.joint_cards(s.root)
        occ, waste, stock, up, down, left = s.root
        count = [0]
        won, _ = solver.joint_node(codes, twin, len(waste) + len(stock), len(waste), up, down, left,
                                   [-1] * len(codes), 0, [0] * solver.JOINT_DEPTH, count)
        assert won == joint_game_brute_force(state), state
        assert s.joint_fails(s.root) is not won
        seen[won] += 1
        branched += count[0] > 1
    assert seen[True] >= 5 and seen[False] >= 10 and branched >= 5, (seen, branched)


@pytest.mark.parametrize("redeals", [0, 1, 2])
def test_joint_rule_proves_losses_and_no_wins(redeals):
    """Rule 9 (the joint game cannot be won) fires on lost positions only (plain exhaustive
    search of the game itself), on small positions of two suits."""
    assert fires_on_losses_only("joint_fails", range(15000, 15120), redeals) >= 10


def test_deal_117_is_lost_by_its_clubs():
    """Golden deal: Crazy Quilt 117 at one redeal, undecided after 1,081,920,704 nodes of rules
    1-7, is proven lost at the opening by rule 8: its clubs (15 of the 32 stock cards) cannot be
    played out even alone, by plain search of their game; the other suits' games can."""
    state = GAME.opening(DealNumber(117), CrazyQuiltRules(1))
    games = [suit_game_brute_force(*game) for game in suit_games(state)]
    assert games == [False, True, True, True]
    assert search(state, None, nodes=10)[:2] == ("lost", ())
    s = Search(state)
    s.suit_rule = False
    assert not s.rules_fail(s.root)


@pytest.mark.slow
def test_relaxations_pass_every_position_of_a_won_line():
    """Rules 4, 6, 7 and 8 never fire on a position from which a win is known: every position on
    the winning lines of real deals (one and two redeals, and wrap), from the opening to the end,
    with the quilt's geometry, the builds and the waste as they are in play."""
    checked = 0
    for n, rules in ((9, CrazyQuiltRules(1)), (11, CrazyQuiltRules(1)), (1, CrazyQuiltRules(1)),
                     (8, CrazyQuiltRules(1)), (2, CrazyQuiltRules(2)), (4, CrazyQuiltRules(2)),
                     (6, CrazyQuiltRules(1, wrap=True)), (2, CrazyQuiltRules(1, wrap=True))):
        state = GAME.opening(DealNumber(n), rules)
        for move in winning_line(n, rules):
            s = Search(state)
            assert not s.rules_fail(s.root), (n, move)
            checked += 1
            state = GAME.apply(state, move)
    assert checked >= 500, checked


@pytest.mark.slow
@pytest.mark.parametrize("rules", [CrazyQuiltRules(1), CrazyQuiltRules(2), CrazyQuiltRules(1, wrap=True)], ids=str)
def test_children_that_skip_the_geometry_relaxation_pass_it(rules):
    """A foundation move of a rank's last copy onto which no quilt card builds
    (:meth:`Search.geo_inherits`) keeps rule 7 passing, so the search does not check its child
    by rule 7: where the Python search skips that check (every second such child in its first
    1,500 nodes on openings and on positions of random games), the parent passes rule 7 and so
    does the child. Both conditions are needed: a last copy that a quilt card builds onto can
    lose the child rule 7 (deal 37 with ``wrap``), and so can a card whose twin is still to
    place."""
    inherit, hosted = [], []

    class Recording(Search):
        def geo_inherits(self, st, m):
            got = super().geo_inherits(st, m)
            c = st[1][-1] if m[1] == solver.WASTE_SRC else self.quilt[m[1]]
            if got:
                inherit.append((self, st, m))
            elif not st[3][c >> 4] < c & 15 < st[4][c >> 4]:  # a last copy, built onto
                hosted.append((self, st, m))
            return got

    starts = [GAME.opening(DealNumber(n), rules) for n in (*range(1, 7), 37)]
    starts += [random_game(200 + seed, rules)[20] for seed in range(6)]
    for state in starts:
        s = Recording(state)
        s.max_nodes = 1500
        try:
            s.run()
        except solver.Timeout:
            pass
    assert len(inherit) >= 100, len(inherit)
    for s, st, m in inherit[::2]:
        assert not s.geo_fails(st), (st, m)
        assert not s.geo_fails(dict(s.children(st))[m]), (st, m)
    if rules.wrap:
        assert any(s.geo_fails(dict(s.children(st))[m]) for s, st, m in hosted)


def test_children_that_skip_the_relaxation_pass_it():
    """The two kinds of child whose rule-6 check is skipped (the last copy of a rank played to
    its foundation, a deal that leaves the relaxation's run unchanged) pass it whenever their
    parent does, on positions of real games at one and two redeals and on small quilts."""
    states = [synthetic(6000 + seed, CrazyQuiltRules(seed % 3), left=12) for seed in range(60)]
    for n, rules in ((9, CrazyQuiltRules(1)), (11, CrazyQuiltRules(1)), (2, CrazyQuiltRules(2))):
        state = GAME.opening(DealNumber(n), rules)
        for move in winning_line(n, rules):
            states.append(state)
            state = GAME.apply(state, move)
    skipped = {"f": 0, "d": 0}
    for state in states:
        s = Search(state)
        if GAME.outcome(state) is not Outcome.IN_PLAY or s.relax_fails(s.root):
            continue
        for m, nxt in s.children(s.root):
            if (m[0] == "f" and s.last_copy(s.root, m)) or (m[0] == "d" and s.top_stuck(s.root)):
                skipped[m[0]] += 1
                assert not s.relax_fails(nxt), (state, m)
    assert skipped["f"] >= 20 and skipped["d"] >= 20, skipped


def cards(text: str) -> tuple[Card, ...]:
    return tuple(Card.parse(t) for t in text.split())


@pytest.mark.parametrize("wrap, expected", [(False, "lost"), (True, "won")])
def test_persian_rug_lost_by_hand(wrap, expected):
    """Every reserve blocked (each K waits for the Q under it, each A for the 2 under it); the
    two quilt cards play, and then nothing: lost, after a search. With wrap a K goes onto an A
    and frees its Q: won."""
    ups = [cards("AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC"), cards("AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS"),
           cards("AH 2H 3H 4H 5H 6H 7H 8H 9H TH"), cards("AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD")]
    downs = [cards("KC QC JC TC 9C 8C 7C 6C 5C 4C 3C"), cards("KS QS JS TS 9S 8S 7S 6S 5S 4S 3S"),
             cards("KH QH JH TH 9H 8H 7H 6H 5H 4H"), cards("KD QD JD TD 9D 8D 7D 6D 5D 4D 3D")]
    quilt = [None] * 64
    quilt[0], quilt[2] = Card.parse("JH"), Card.parse("3H")
    reserves = tuple(cards(t) for t in ("QC KC", "QS KS", "QH KH", "QD KD", "2C AC", "2S AS", "2H AH", "2D AD"))
    state = CrazyQuiltState(CrazyQuiltRules(reserves=True, wrap=wrap), tuple(ups + downs), tuple(quilt),
                            (), (), reserves)
    assert GAME.outcome(state) is Outcome.IN_PLAY
    assert check(state) == expected


def test_persian_rug_cycles_do_not_loop():
    # Reserve cards that can move back and forth, and every verdict as brute force says.
    rules = CrazyQuiltRules(reserves=True)
    for seed in range(12):
        state = synthetic(1000 + seed, rules, left=9)
        assert search(state, budget=None)[0] == brute_force(state)


@pytest.mark.slow
def test_safe_moves_keep_the_position_won():
    checked = 0
    for rules in RULES:
        for seed in range(6 if rules.reserves else 15):
            state = synthetic(2000 + seed, rules, left=9)
            moves = safe_moves(state)
            after = GAME.play(state, moves)  # every move legal
            expected = brute_force(state)
            if expected == "won" and moves:
                checked += 1
                assert brute_force(after) == "won"
    assert checked >= 10


def test_the_deal_on_an_empty_waste_is_as_good_as_the_position():
    """sure_move's rule 2: with the waste empty and the stock not, the deal. Against plain
    exhaustive search, the position after the deal is won exactly when the one before is, in
    small positions whose waste is put back on the stock, shuffled, with no redeal left every
    other time (any rules with a stock, wrap too)."""
    checked = {"won": 0, "lost": 0}
    for rules in [r for r in RULES if not r.reserves]:
        for seed in range(16):
            small = synthetic(4000 + seed, rules, left=9)
            stock = list(small.waste + small.stock)
            random.Random(seed).shuffle(stock)
            state = CrazyQuiltState(rules, small.foundations, small.quilt, tuple(stock), (),
                                    redeals_used=rules.redeals if seed % 2 else small.redeals_used)
            if not state.stock or GAME.outcome(state) is not Outcome.IN_PLAY:
                continue
            move = GAME.sure_move(state)
            assert move is not None  # the deal, unless a foundation move is safe first
            before = brute_force(state)
            if before is None:
                continue
            assert brute_force(GAME.apply(state, move)) == before, (state, move)
            checked[before] += 1
    assert checked["won"] >= 10 and checked["lost"] >= 5, checked
    # Not in Persian Rug (no stock), nor with a card on the waste.
    rug = GAME.opening(DealNumber(1), CrazyQuiltRules(reserves=True))
    assert DEAL not in GAME.legal_moves(rug) and GAME.sure_move(rug) is None
    dealt = GAME.apply(GAME.opening(DealNumber(1)), DEAL)
    assert GAME.sure_move(dealt) is None


def test_safe_moves_play_the_certain_cards_of_a_real_deal():
    state = GAME.opening(DealNumber(1))
    moves = safe_moves(state)
    # The deal, the waste being empty; then none is certain: 2S (q78) and QH (q81) have twins
    # that the other foundation of their suit may want.
    assert moves == (DEAL,)
    state = GAME.opening(DealNumber(2), CrazyQuiltRules(2))
    line = winning_line(2, CrazyQuiltRules(2))
    late = GAME.play(state, line[:-20])
    tail = safe_moves(late)
    assert tail and GAME.outcome(GAME.play(late, tail)) is not Outcome.LOST


def test_greedy_player():
    # On a position where only foundation moves and deals are needed greedy wins.
    wins = 0
    for seed in range(60):
        state = synthetic(3000 + seed, CrazyQuiltRules(1), left=6)
        won = greedy_wins(CRAZY_QUILT, state)
        if won:
            wins += 1
            assert brute_force(state) == "won"
    assert wins >= 5
    state = GAME.opening(DealNumber(1), CrazyQuiltRules(reserves=True))
    move = greedy_move(state)
    assert isinstance(move, Transfer) and move.target.kind == "f"
    assert greedy_wins(CRAZY_QUILT, state) in (True, False)  # ends: greedy never shuffles reserves


def test_budget_and_progress():
    state = GAME.opening(DealNumber(1))
    assert search(state, budget=0.0) == ("unknown", (), CLOCK_EVERY)  # at its first read of the clock

    def cancel(nodes, seconds):
        raise KeyboardInterrupt

    s = Search(state, None, cancel)
    s.next_report = 0  # report at the first tick, after CLOCK_EVERY positions
    with pytest.raises(KeyboardInterrupt):
        s.run()
    assert s.nodes == CLOCK_EVERY


def test_search_of_finished_positions():
    state = synthetic(7, CrazyQuiltRules(1), left=0)
    assert state.complete and search(state) == ("won", (), 0)
    lost = synthetic(11, CrazyQuiltRules(0), left=6)
    while GAME.legal_moves(lost):
        lost = GAME.apply(lost, GAME.legal_moves(lost)[-1])
    if not lost.complete:
        assert search(lost) == ("lost", (), 0)
    with pytest.raises(IllegalMove):
        GAME.apply(lost, Transfer(solver.W, solver.F(1)))


def test_a_playable_card_whose_twin_is_not_on_the_other_foundation_is_not_safe():
    """Rule 1 needs the twin on the other foundation. Here 5H on the waste fits f3 (hearts up)
    while f7 (hearts down, at 7) has no 5H yet: playing it at once loses, since the 4H of q34
    must go onto it to uncover the 6H of q44 that f7 needs (and the other 6H, in q45, lies
    beside it)."""
    hearts_up = cards("AH 2H 3H 4H")
    hearts_down = cards("KH QH JH TH 9H 8H 7H")
    ups = [tuple(Card(r, s) for r in range(1, 14)) for s in SUITS]
    downs = [tuple(Card(r, s) for r in range(13, 0, -1)) for s in SUITS]
    ups[2], downs[2] = hearts_up, hearts_down
    quilt: list[Card | None] = [None] * 64
    for place, text in (("q34", "4H"), ("q44", "6H"), ("q54", "3H"), ("q11", "5H"), ("q45", "6H"), ("q46", "2H"),
                        ("q15", "AH"), ("q17", "7H"), ("q18", "8H"), ("q21", "9H"), ("q41", "TH"),
                        ("q61", "JH"), ("q81", "QH"), ("q82", "KH")):
        quilt[8 * (int(place[1]) - 1) + int(place[2]) - 1] = Card.parse(text)
    state = CrazyQuiltState(CrazyQuiltRules(0), tuple(ups + downs), tuple(quilt), (), cards("5H"))
    assert check(state) == "won"
    eager = GAME.apply(state, Transfer(solver.W, solver.F(3)))
    assert brute_force(eager) == "lost"
    assert safe_moves(state) == ()
    # Once the 5H's twin is on f7 (and the 4H on it gone there too), the same play is safe.
    later = GAME.play(state, [Transfer(solver.place_of(19), solver.W), Transfer(solver.place_of(27), solver.F(7)),
                              Transfer(solver.place_of(0), solver.F(7))])
    assert [str(m) for m in safe_moves(later)][:2] == ["w f7", "w f3"]


def test_the_game_protocol_hooks():
    """What the shared layers will call: Game.search, Game.sure_move, Game.greedy_wins, and the
    shared solver front, which replays a win."""
    from musical_cli.solver import solve

    state = GAME.opening(DealNumber(2), CrazyQuiltRules(2))
    result, moves, nodes = GAME.search(state, None, None)
    assert result == "won" and GAME.outcome(GAME.play(state, moves)) is Outcome.WON
    assert solve(GAME, state, budget=None).result == "won"
    assert GAME.greedy_wins(state) is greedy_wins(GAME, state)
    # sure_move: the first of the safe moves that are not merely the only legal move.
    late = GAME.play(state, moves[:-20])
    sure = GAME.sure_move(late)
    assert sure is not None and sure in GAME.legal_moves(late) and sure == safe_moves(late)[0]
    opening = GAME.opening(DealNumber(1))
    assert GAME.sure_move(opening) == DEAL  # the waste is empty
    assert GAME.sure_move(GAME.apply(opening, DEAL)) is None
    wrapped = CrazyQuiltState(CrazyQuiltRules(2, wrap=True), late.foundations, late.quilt, late.stock, late.waste)
    assert GAME.sure_move(wrapped) is None  # rules 1 and 2 are off with wrap


def test_luby_sequence():
    assert [solver.luby(i) for i in range(1, 16)] == [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]
    limits = solver.run_limits()
    assert [next(limits) for _ in range(5)] == [solver.FIRST_RUN] + [solver.RESTART_UNIT * k for k in (1, 1, 2, 1)]


def test_restarts(monkeypatch):
    """search() runs the heuristic order to FIRST_RUN nodes, then restarts in perturbed orders
    (salt 1, 2, ...) to the Luby limits, the last cut to what is left of the node limit; the
    first run that decides gives the verdict. One search object does every run, so a restart
    keeps the positions proved lost; the nodes are all the runs' together."""
    monkeypatch.setattr(solver, "FIRST_RUN", 4000)
    monkeypatch.setattr(solver, "RESTART_UNIT", 1000)
    runs = []
    cls = type(solver.make_search(GAME.opening(DealNumber(3))))  # the core's or Python's
    restart, run = cls.restart, cls.run

    def recording_restart(self, salt):
        restart(self, salt)
        runs.append(salt)

    def recording_run(self, *args):
        runs.append(self.max_nodes)
        return run(self, *args)

    monkeypatch.setattr(cls, "restart", recording_restart)
    monkeypatch.setattr(cls, "run", recording_run)
    # Deal 21: the heuristic order does not win it within 4,000 nodes, the first restart's does.
    state = GAME.opening(DealNumber(21))
    result, moves, nodes = search(state, None, nodes=20_000)
    assert result == "won" and GAME.outcome(GAME.play(state, moves)) is Outcome.WON
    assert runs[:2] == [4000, 1] and runs[2] in range(5000, 5000 + CLOCK_EVERY) and len(runs) == 3
    assert runs[2] - 1000 < nodes < runs[2]
    # Deal 25 is undecided by each run: the runs follow the sequence until the limit is spent,
    # the last one cut to what is left.
    runs.clear()
    result, _, nodes = search(GAME.opening(DealNumber(25)), None, nodes=7000)
    assert result == "unknown" and 7000 <= nodes < 7000 + CLOCK_EVERY
    limits = [runs[i] for i in (0, 2, 4, 6)]
    assert runs[1::2] == [1, 2, 3]
    steps = [b - a for a, b in zip(limits, limits[1:], strict=False)]
    assert limits[0] == 4000 and all(1000 <= k < 1000 + CLOCK_EVERY for k in steps[:2])
    assert limits[3] == 7000 and len(runs) == 7
    # A node limit within the first run: that run alone, as before restarts.
    runs.clear()
    assert search(GAME.opening(DealNumber(25)), None, nodes=4000)[0] == "unknown"
    assert runs == [4000]


def test_a_restart_order_is_a_permutation_of_the_children():
    s = Search(GAME.opening(DealNumber(31)))
    kids = s.children(s.root)  # six children
    key = s.key(s.root)
    orders = {tuple(m for m, _ in solver.shuffled(kids, key, salt)) for salt in range(1, 30)}
    assert all(sorted(o) == sorted(m for m, _ in kids) for o in orders)
    assert len(kids) == 6 and len(orders) > 5  # the salts give different orders
    assert solver.shuffled(kids, key, 3) == solver.shuffled(kids, key, 3)  # and each the same again
