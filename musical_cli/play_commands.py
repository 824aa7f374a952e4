"""The moves and the game in hand: d, w, redeal, undo, redo, moves, show, new, restart, save,
load, rules (a feature of the command registry, :mod:`.commands`)."""

from __future__ import annotations

import textwrap
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import files
from .advice import rating_text
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
    usage_error,
)
from .deals import DealNumber, random_deal_number
from .game import Game, RulesError
from .games import GAMES, game_named, rule_flags
from .hand import Rules
from .i18n import N_, _
from .moves import REDEAL, Move, Transfer
from .render import plural
from .transcript import MAX_BYTES, TranscriptError, format_transcript, read_bytes


@command("d", "d", N_("deal: turn the stock's top card onto the waste"), aliases=("deal",), plays="d",
         details=N_("Allowed while the stock has cards, when the rules allow it ('rules' says when). "
                    "In a game where the turned card must be placed at once, the shell turns the "
                    "next card up by itself, as PySolFC does."))
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


@command("w", "w [TARGET]", N_("play the waste card: to foundation N (w fN), or where the game allows"),
         details=N_("'w f2', 'wf2', 'w2' and 'w 2' are the same move. 'w' alone plays the card to the "
                    "one foundation that takes it; when several or none do, it says what would work. "
                    "The other targets are the game's ('help' lists its moves)."),
         arguments=_targets, plays="w")
def _waste(session: Session, args: list[str]) -> Reply:
    return play_text(session, " ".join(["w", *args]))


@command("redeal", "redeal", N_("turn the waste over to become the stock again"),
         details=N_("Allowed when the stock is empty and the waste is not, as often as the game's "
                    "rules allow (the rule option --redeals); some games have no redeal."),
         plays="redeal")
def _redeal(session: Session, args: list[str]) -> Reply:
    no_args(args, "redeal")
    return play_text(session, "redeal")


@command("undo", "undo [N]", N_("take back the last move (or the last N)"), aliases=("u",))
def _undo(session: Session, args: list[str]) -> Reply:
    n = count_arg(args, "undo [N]")
    if not session.steps:
        raise CommandError(_("nothing to undo: no move has been made"))
    done = session.undo(n)
    # TRANSLATORS: {moves} is a count of moves ("3 moves").
    return Reply(show=True).say(_("undid {moves}").format(moves=plural(done, "move")))


@command("redo", "redo [N]", N_("make again the last move taken back (or the last N)"))
def _redo(session: Session, args: list[str]) -> Reply:
    n = count_arg(args, "redo [N]")
    if not session.undone:
        raise CommandError(_("nothing to redo"))
    done = session.redo(n)
    # TRANSLATORS: {moves} is a count of moves ("3 moves").
    return after_move(session, Reply().say(_("redid {moves}").format(moves=plural(done, "move"))))


@command("moves", "moves", N_("list the legal moves now"))
def _moves(session: Session, args: list[str]) -> Reply:
    no_args(args, "moves")
    legal = session.game.legal_moves(session.state)
    if not legal:
        return Reply().say(_("no move is legal"))
    # TRANSLATORS: {moves} are the legal moves in notation, typed: "d, w f1".
    return Reply().say(_("legal: {moves}").format(moves=", ".join(str(m) for m in legal)))


@command("show", "show", N_("show the layout again"), aliases=("s", "layout"))
def _show(session: Session, args: list[str]) -> Reply:
    no_args(args, "show")
    return Reply(show=True, asked=True)


NEW_USAGE = "new [N] [--game NAME] [OPTIONS]"


@dataclass(frozen=True)
class NewGame:
    """What 'new' was asked for: the game and rules, and a deal number or how to choose one."""

    game: Game
    rules: Rules
    deal: DealNumber | None = None  # None: a random deal (or one --winnable, --difficulty choose)
    winnable: bool = False
    difficulty: str | None = None
    other: bool = False  # another game or rules than those in hand: the answer names them


def _games_text() -> str:
    return ", ".join(GAMES)


def _flags_text(game: Game) -> str:
    return ", ".join(o.option_flag + ("" if o.metavar is None else f" {o.metavar}") for o in game.options) \
        or _("none")


def _named_game(words: list[str]) -> Game | None:
    """The game that --game names among ``words``, if it names one."""
    lowered = [w.lower() for w in words]
    if "--game" not in lowered[:-1]:
        return None
    try:
        return game_named(lowered[lowered.index("--game") + 1])
    except KeyError:
        return None


def parse_new(session: Session, args: list[str]) -> NewGame:
    """The words after 'new': a deal number, --game NAME, the rule options of that game (of the
    game in hand without --game), --winnable or --difficulty D, in any order. With --game the
    rules are the game's defaults changed by the options given; without, the rules in hand."""
    flags = rule_flags()
    words: list[str] = []
    for word in args:  # --game=quilt is --game quilt
        flag, eq, value = word.partition("=")
        words += [flag, value] if eq and flag.startswith("--") else [word]
    if {"--winnable", "--difficulty"} <= {w.lower() for w in words}:
        raise CommandError(_("new --winnable or new --difficulty D, not both: a deal of any rating but "
                             "'lost' is winnable"))
    name: str | None = None
    given: dict[str, str] = {}  # rule flag -> its value as text
    deal_text: str | None = None
    winnable = False
    difficulty: str | None = None
    seen: set[str] = set()
    i = 0
    while i < len(words):
        word, flag = words[i], words[i].lower()
        i += 1
        if not flag.startswith("--"):
            if deal_text is not None:
                # TRANSLATORS: {first} and {second} are the two deal numbers typed; {usage} the usage line of 'new'.
                raise CommandError(_("one deal number at most: {first} or {second}? (usage: {usage})").format(
                    first=deal_text, second=word, usage=NEW_USAGE))
            deal_text = word
            continue
        if flag in seen:
            # TRANSLATORS: {flag} is an option, typed ("--game").
            raise CommandError(_("{flag} is given twice; give it once").format(flag=flag))
        seen.add(flag)
        switch = flag == "--winnable" or (flag in flags and flags[flag][0][1].metavar is None)
        if flag not in ("--game", "--difficulty", "--winnable") and flag not in flags:
            named = _named_game(words) or session.game
            # TRANSLATORS: {option} is the option typed, quoted; {games} the games' names, typed
            # ("musical, calculation, crazy-quilt"); {title} a game's name; {flags} its rule options.
            raise CommandError(_("'new' has no option {option}; it takes a deal number, --game NAME ({games}), "
                                 "--winnable, --difficulty D, and the game's rule options "
                                 "({title}: {flags})").format(option=repr(word), games=_games_text(),
                                                              title=named.title, flags=_flags_text(named)))
        value = ""
        if not switch:
            if i >= len(words) or words[i].startswith("--"):
                metavar = {"--game": "NAME", "--difficulty": "D"}.get(flag) or flags[flag][0][1].metavar
                if flag == "--game":
                    # TRANSLATORS: {flag} is an option, typed ("--game"); {metavar} what follows it
                    # ("NAME"); {games} the games' names, typed ("musical, calculation, crazy-quilt").
                    needs = _("{flag} needs a game's name ({games}): {flag} {metavar}")
                elif flag == "--difficulty":
                    # TRANSLATORS: easy, medium, hard and lost are typed: they stay English; {flag}
                    # is the option typed, {metavar} what follows it ("D").
                    needs = _("{flag} needs easy, medium, hard or lost: {flag} {metavar}")
                else:
                    # TRANSLATORS: {flag} is an option, typed; {metavar} what follows it ("N").
                    needs = _("{flag} needs a value: {flag} {metavar}")
                raise CommandError(needs.format(flag=flag, metavar=metavar, games=_games_text()))
            value = words[i]
            i += 1
        if flag == "--game":
            name = value
        elif flag == "--winnable":
            winnable = True
        elif flag == "--difficulty":
            difficulty = value.lower()
        else:
            given[flag] = value if not switch else str(flags[flag][0][1].const)
    if deal_text is not None and (winnable or difficulty is not None):
        how = "--winnable" if winnable else "--difficulty"
        # TRANSLATORS: {deal} is the deal number typed; {flag} is --winnable or --difficulty.
        raise CommandError(_("new {deal} deals deal {deal}; {flag} chooses a random deal: give one or the other")
                           .format(deal=deal_text, flag=how))
    game = session.game
    if name is not None:
        try:
            game = game_named(name)
        except KeyError:
            # TRANSLATORS: {name} is the name typed, quoted; {games} the games' names, typed.
            raise CommandError(_("no game {name}; the games are {games} ('new --game crazy-quilt')").format(
                name=repr(name), games=_games_text())) from None
    options = game.rules_options(game.default_rules() if name is not None else session.rules)
    for flag, value in given.items():
        option = next((o for g, o in flags[flag] if g is game), None)
        if option is None:
            owners = [g.name for g, _option in flags[flag]]
            # TRANSLATORS: {flag} is a rule option, typed ("--reserves"); {owners} the games that have
            # it, typed ("crazy-quilt"); {title} the game's name; {owner} a game's name, typed; {flags}
            # the rule options of the game, typed.
            wrong = (_("{flag} is a rule option of {owners}, not of {title} ('new --game {owner} {flag}' "
                       "changes game); {title}'s are: {flags}") if len(owners) == 1 else
                     # TRANSLATORS: as above, where two games have the option: {owners} and {other}.
                     _("{flag} is a rule option of {owners} and {other}, not of {title} ('new --game "
                       "{owner} {flag}' changes game); {title}'s are: {flags}"))
            raise CommandError(wrong.format(flag=flag, owners=", ".join(owners[:-1]) or owners[0],
                                            other=owners[-1], title=game.title, owner=owners[0],
                                            flags=_flags_text(game)))
        options[option.name] = value
    try:
        rules = game.rules_from_options(options)
    except RulesError as e:
        raise CommandError(str(e)) from None
    deal = DealNumber.parse(deal_text) if deal_text is not None else None
    other = game is not session.game or rules != session.rules
    return NewGame(game, rules, deal, winnable, difficulty, other)


def _new_completes(session: Session, words: list[str]) -> list[str]:
    """What completes the next word of 'new': a game's name after --game, a rating after
    --difficulty, nothing after another option that takes a value; else the options not yet
    given (the rule options of the game named, or of the game in hand)."""
    flags = rule_flags()
    lowered = [w.lower() for w in words]
    last = lowered[-1] if lowered else ""
    if last == "--game":
        return list(GAMES)
    if last == "--difficulty":
        from .advice import RATINGS

        return list(RATINGS[:4])  # those a deal can be dealt by ("unknown" is none)
    if last in flags and flags[last][0][1].metavar is not None:
        return []
    game = _named_game(words) or session.game
    offered = [] if "--game" in lowered else ["--game"]
    if "--winnable" not in lowered and "--difficulty" not in lowered:
        offered += ["--winnable", "--difficulty"]
    return offered + [o.option_flag for o in game.options if o.option_flag not in lowered]


@command("new", NEW_USAGE, N_("start a new deal: deal N or a random one, of this game or another"),
         details=N_("The deal number is shown at once, so that the game can be replayed with --seed N. "
                    "'new --game NAME' deals a game of NAME (musical, calculation, crazy-quilt) under "
                    "its default rules, changed by the rule options given ('new --game crazy-quilt "
                    "--reserves', 'new --game calculation --piles 3 7'); rule options without --game "
                    "change the rules in hand ('new --redeals 1'). 'new --winnable' deals a random "
                    "deal the solver proves winnable; 'new --difficulty hard' (easy, medium, hard, "
                    "lost) a random deal of that rating. Tab completes the options."),
         arguments=("--game", "--winnable", "--difficulty"), completes=_new_completes)
def _new(session: Session, args: list[str]) -> Reply:
    ask = parse_new(session, args)
    game, rules = ask.game, ask.rules
    # Another game or other rules than those in hand are named: "Calculation with 3 piles, deal 5".
    title = game.variant_title(rules)
    # The words below go into confirm_abandon's question: "...; {doing} ends it ...".
    if ask.difficulty is not None:
        from . import advice

        wanted = ask.difficulty
        rating = rating_text(wanted)
        why = advice.no_rated_deal(game, rules, wanted)
        if why:
            raise CommandError(why)
        # asked before the search: a game in play is ended only with the player's word
        # TRANSLATORS: what ends the game in hand, in a question; {rating} is a difficulty word
        # (easy, medium, hard, lost), {title} a game's name ("Calculation with 3 piles").
        confirm_abandon(session, _("a new {rating} deal of {title}").format(rating=rating, title=title)
                        if ask.other else _("a new {rating} deal").format(rating=rating))
        deal = advice.deal_rated(game, rules, wanted, random_deal_number)
        if deal is None:
            raise CommandError(advice.no_deal_rated(game, rules, wanted))
        session.start(game, deal, rules)
        session.mark(difficulty=wanted, chosen=wanted)
        # TRANSLATORS: {title} is a game's name, {deal} the deal's number, {rating} a difficulty word.
        said = (_("{title}, deal {deal} (rated {rating})") if ask.other else _("deal {deal} (rated {rating})"))
        return Reply(show=True).say(said.format(title=title, deal=deal, rating=rating))
    if ask.winnable:
        from . import advice

        # TRANSLATORS: what ends the game in hand, in a question; {title} is a game's name.
        confirm_abandon(session, _("a new winnable deal of {title}").format(title=title) if ask.other
                        else _("a new winnable deal"))
        deal = advice.winnable_deal(game, rules, random_deal_number)
        if deal is None:
            raise CommandError(advice.no_winnable_deal(game, rules))
        session.start(game, deal, rules)
        session.mark(chosen="winnable")
        # TRANSLATORS: {title} is a game's name, {deal} the deal's number.
        said = (_("{title}, deal {deal} (dealt winnable: the solver proved it)") if ask.other
                else _("deal {deal} (dealt winnable: the solver proved it)"))
        return Reply(show=True).say(said.format(title=title, deal=deal))
    deal = ask.deal if ask.deal is not None else random_deal_number()
    # TRANSLATORS: what ends the game in hand, in a question; {title} is a game's name, {deal} the
    # new deal's number.
    confirm_abandon(session, _("a new deal of {title} ({deal})").format(title=title, deal=deal) if ask.other
                    else _("a new deal ({deal})").format(deal=deal))
    session.start(game, deal, rules)
    # TRANSLATORS: {title} is a game's name, {deal} the deal's number.
    said = _("{title}, deal {deal}") if ask.other else _("deal {deal}")
    return Reply(show=True).say(said.format(title=title, deal=deal))


@command("restart", "restart", N_("start this deal again from the beginning"))
def _restart(session: Session, args: list[str]) -> Reply:
    no_args(args, "restart")
    # TRANSLATORS: what ends the game in hand, in a question ("...; restarting it ends it ...").
    confirm_abandon(session, _("restarting it"))
    session.start(session.game, session.deal, session.rules)
    # TRANSLATORS: {deal} is the deal's number.
    return Reply(show=True).say(_("deal {deal} restarted").format(deal=session.deal))


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
        # TRANSLATORS: the label of a line of moves that plays pass {n} of the game ("pass 2: d w f1").
        label = _("pass {n}:").format(n=first + n) + " " if first is not None else ""
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


@command("save", "save [FILE]", N_("save this game as a transcript"),
         details=N_("Without FILE, to the data directory ($XDG_DATA_HOME/musical), named after the deal. "
                    "Undone moves are not saved."),
         arguments="path")
def _save(session: Session, args: list[str]) -> Reply:
    if len(args) > 1:
        # TRANSLATORS: {usage} is the usage line of 'save', typed.
        raise CommandError(_("usage: {usage} (quote nothing; a file name has no spaces here)").format(
            usage="save [FILE]"))
    given = args[0] if args else None
    text = format_transcript(session.record, session.outcome())
    try:
        path = files.expand_user(given) if given is not None else None
    except OSError as e:
        # TRANSLATORS: {file} is the file named; {why} the system's reason.
        raise CommandError(_("cannot save to {file}: {why}").format(file=given, why=e)) from None
    if path is None:
        try:
            path = default_save_path(session)
        except files.NoHomeError as e:
            # TRANSLATORS: {why} says why there is no data directory; "save FILE" is typed.
            raise CommandError(_("cannot save: {why}; name a file: save FILE").format(why=e)) from None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        files.atomic_write(path, text)
    except OSError as e:
        raise CommandError(_("cannot save to {file}: {why}").format(file=path, why=e.strerror or e)) from None
    # The file holds every move, the cards a game turned up by itself too (as 'd' lines, which a
    # transcript needs); the player is told their own count, as the record counts them.
    # TRANSLATORS: {moves} is a count of moves ("12 moves", "12 moves and 3 cards turned up");
    # {file} the file written.
    return Reply().say(_("saved {moves} to {file}").format(moves=moves_text(session), file=path))


@command("load", "load FILE|@ID", N_("replace this game with the one in a transcript"),
         details=N_("'load @ID' loads game ID of the record ('history' lists them) as a new game."),
         arguments="path")
def _load(session: Session, args: list[str]) -> Reply:
    if len(args) != 1:
        raise usage_error("load FILE|@ID")
    if args[0].startswith("@"):
        from .record_commands import load_recorded

        return load_recorded(session, args[0])
    try:
        path = files.expand_user(args[0])
    except OSError as e:
        # TRANSLATORS: {file} is the file named; {why} the system's reason.
        raise CommandError(_("cannot read {file}: {why}").format(file=args[0], why=e)) from None
    try:
        data = files.read_limited(path, MAX_BYTES)
    except OSError as e:
        raise CommandError(_("cannot read {file}: {why}").format(file=path, why=e.strerror or e)) from None
    try:
        transcript = read_bytes(data)
    except TranscriptError as e:
        raise CommandError(f"{path}: {e.text(session.ascii)}") from None
    record = transcript.record
    # TRANSLATORS: what ends the game in hand, in a question; {file} is the transcript's file.
    confirm_abandon(session, _("loading {file}").format(file=path))
    # Moves that came with the game are not the player's: it counts apart (a replay when finished).
    session.start(record.game, record.deal, record.rules, record.moves, how="loaded" if record.moves else "player")
    # TRANSLATORS: {deal} is the deal's number; {moves} a count of moves ("12 moves"); {file} the file read.
    return Reply(show=True).say(_("loaded deal {deal}, {moves}, from {file}").format(
        deal=record.deal, moves=moves_text(session), file=path))



@command("rules", "rules", N_("the rules of the game in hand"),
         details=N_("The same text as the game's part of the manual, musical-games(7)."))
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


