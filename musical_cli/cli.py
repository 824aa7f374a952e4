"""The command line: ``musical`` (play, or batch mode on a pipe) and its subcommands."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import textwrap
from collections.abc import Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, TextIO

from . import __version__, i18n
from .deals import DealNumber, DealNumberError, parse_deal_range, random_deal_number
from .game import Game, NotAvailable, Outcome, RulesError
from .games import DEFAULT_GAME, GAMES, game_named, rule_flags

if TYPE_CHECKING:  # the record is opened only by the shell, once its prompt shows (SQLite is slow to start)
    from .record import Recorder
    from .settings import Settings

from .render import (
    STYLE,
    Fragments,
    dumb_terminal,
    layout,
    opening_record,
    opening_text,
    plain,
    plural,
    rating_progress,
    search_progress,
    wants_colour,
)
from .render import (
    wrap as wrap_fragments,
)
from .results import (  # noqa: F401  (the exit statuses: the man page's EXIT STATUS, checked by the tests)
    EXIT_INTERRUPTED,
    EXIT_INVALID,
    EXIT_NOT_WON,
    EXIT_SOFTWARE,
    EXIT_UNKNOWN,
    EXIT_USAGE,
    EXIT_WON,
    standing,
)

SUBCOMMANDS = ("deal", "verify", "replay", "solve", "stats", "history", "review")


class UsageError(Exception):
    """A bad option or argument: exit status 2, with the usage line."""


class FileError(Exception):
    """A file that cannot be read: exit status 2, without the usage line."""


def _deal_number(text: str) -> DealNumber:
    try:
        return DealNumber.parse(text)
    except DealNumberError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _deal_range(text: str) -> list[DealNumber]:
    try:
        return parse_deal_range(text)
    except DealNumberError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds above 0")
    return value


def _node_count(text: str) -> int:
    try:
        value = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of search nodes (a whole number above 0)")
    return value


def _game_name(text: str) -> str:
    try:
        return game_named(text).name
    except KeyError:
        known = ", ".join(repr(n) for n in sorted(GAMES))
        raise argparse.ArgumentTypeError(f"no game {text!r} (choose from {known})") from None


def _dest(flag: str) -> str:
    return "rule_" + flag.lstrip("-").replace("-", "_")




def _limit(text: str) -> int:
    # A limit past the record's largest id lists every game (whole_number caps it).
    from .commands import whole_number

    n = whole_number(text)
    if n is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number from 1 up")
    return n


def _add_rules(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", type=_game_name, default=None, metavar="GAME",
                   help=f"the game: {', '.join(GAMES)} (default {DEFAULT_GAME.name})")
    # One flag per rule option that some game declares; a flag two games share is one flag.
    for flag, owners in rule_flags().items():
        first = owners[0][1]
        text = "; ".join(f"{g.title}: {o.help}" for g, o in owners)
        if first.metavar is None:
            p.add_argument(flag, dest=_dest(flag), action="store_const", const=first.const, default=None,
                           help=text)
        else:
            p.add_argument(flag, dest=_dest(flag), metavar=first.metavar, default=None, help=text)


def _given_flags(args: argparse.Namespace) -> dict[str, str]:
    """The rule flags given on the command line, with their values as text."""
    return {flag: getattr(args, _dest(flag)) for flag in rule_flags()
            if getattr(args, _dest(flag), None) is not None}


# Where a node limit's answer may differ: Musical's portfolio gives its local search (Python in
# both installs) a share of the nodes that depends on whether the exact search runs in C
# (games/musical/solver.py, CORE_SIDE_SCALE). The other games' searches are the same node for node.
NODES_CAVEAT = ("with the same install: in Musical, one with the C core and one without may "
                "differ, as the core gives the local search fewer of the nodes")


class _Parser(argparse.ArgumentParser):
    """The top-level parser, which knows its subcommands' parsers (for their usage lines)."""

    subcommands: dict[str, argparse.ArgumentParser] = {}

    def subcommand(self, name: str) -> argparse.ArgumentParser:
        return self.subcommands[name]


def build_parser() -> _Parser:
    parser = _Parser(
        prog="musical",
        description="Musical (Betsy Ross) patience: play at a prompt, or feed commands on standard "
                    "input (batch mode). See musical(1).",
    )
    parser.add_argument("--version", action="version", version=f"musical {__version__}")
    parser.add_argument("--seed", metavar="N", type=_deal_number,
                        help="play deal N (1 up to 10^20, or msN); default: a random deal, shown at once")
    parser.add_argument("--ascii", action=argparse.BooleanOptionalAction, default=None,
                        help="letters (AC, TD) instead of suit symbols")
    parser.add_argument("--resume", action="store_true",
                        help="go on with the unfinished game of the record, where it was left")
    parser.add_argument("--winnable", action="store_true",
                        help="a random deal the solver proves winnable under the rules given")
    parser.add_argument("--difficulty", metavar="D", choices=("easy", "medium", "hard", "lost"),
                        help="a random deal of this rating: easy, medium, hard, lost (docs/difficulty.md)")
    parser.add_argument("--coach", action=argparse.BooleanOptionalAction, default=None,
                        help="the live coach: the status line says whether the game can still be won")
    parser.add_argument("--no-config", action="store_true",
                        help="read no settings file and write none: every setting at its default")
    parser.add_argument("--no-record", action="store_true",
                        help="keep no record of this shell's games (also MUSICAL_NO_RECORD=1)")
    _add_rules(parser)
    sub = parser.add_subparsers(dest="command", metavar="SUBCOMMAND", prog="musical")

    p = sub.add_parser("deal", help="print the opening layout of deals",
                       description="Print the opening layout of each deal named: N is deal N, A-B the "
                                   "deals A to B.")
    p.add_argument("deals", nargs="+", metavar="N|A-B", type=_deal_range,
                   help="a deal number (1 up to 10^20, or msN), or a range of them A-B")
    p.add_argument("--json", action="store_true", help="one JSON object a line")
    p.add_argument("--ascii", action="store_true", help="letters instead of suit symbols")
    _add_rules(p)

    p = sub.add_parser("verify", help="check a transcript: legal? won?",
                       description="Check that every move of a transcript is legal, and say whether "
                                   "the game is won (exit status 0 won, 1 not won, 3 illegal).")
    p.add_argument("file", metavar="FILE", help="a transcript, - for standard input, or @ID for a recorded game")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--ascii", action="store_true", help="letters instead of suit symbols")

    p = sub.add_parser("replay", help="show a transcript's game move by move",
                       description="Show a transcript's game position by position, then its verdict; "
                                   "on a terminal, step through it with Enter, b, a move number, e and q.")
    p.add_argument("file", metavar="FILE", help="a transcript, - for standard input, or @ID for a recorded game")
    p.add_argument("--ascii", action="store_true", help="letters instead of suit symbols")

    p = sub.add_parser("review", help="each move of a game with its verdict, and the move that lost it",
                       description="Review a game: each move with the solver's verdict before and after it, "
                                   "the moves that lost a winnable game, or that it was lost from the deal.")
    p.add_argument("file", metavar="FILE", help="a transcript, - for standard input, or @ID for a recorded game")
    p.add_argument("--json", action="store_true", help="one JSON object a move, then a summary object")

    p = sub.add_parser("solve", help="decide whether a deal (or a transcript's end) can be won",
                       description="Decide whether a deal, or the position at the end of a transcript, "
                                   "can be won, and print a winning game as a transcript when it can.")
    p.add_argument("file", metavar="FILE", nargs="?", help="solve the position at the end of this transcript")
    p.add_argument("--seed", metavar="N", type=_deal_number, help="the deal to solve")
    p.add_argument("--budget", metavar="SECONDS", type=_positive_float, default=None,
                   help="give up with 'unknown' after this long (default 60; none with --nodes)")
    p.add_argument("--nodes", metavar="N", type=_node_count, default=None,
                   help="give up with 'unknown' after N search nodes: the same answer on every "
                        f"machine, however loaded, {NODES_CAVEAT}")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    _add_rules(p)

    p = sub.add_parser("stats", help="how winnable the game is over many deals",
                       description="Solve (or, with --player blind, play) many deals and report how many "
                                   "are won, lost or undecided, and how long they took: N is deal N, A-B "
                                   "the deals A to B (give as many as you like); the figures of your own "
                                   "games are 'musical history --stats'.")
    p.add_argument("deals", nargs="*", metavar="N|A-B", type=_deal_range,
                   help="a deal number (1 up to 10^20, or msN), or a range of them A-B")
    p.add_argument("--workers", metavar="W", type=int, default=None,
                   help="parallel processes (default: one per core)")
    p.add_argument("--budget", metavar="SECONDS", type=_positive_float, default=None,
                   help="per deal, before it counts as unknown (default 10; none with --nodes)")
    p.add_argument("--nodes", metavar="N", type=_node_count, default=None,
                   help="per deal, search nodes before it counts as unknown: the same results on "
                        f"every machine, however loaded, {NODES_CAVEAT}")
    p.add_argument("--player", choices=("solver", "blind"), default=None,
                   help="'solver' sees the stock order (default); 'blind' plays each deal seeing "
                        "only what a player sees (for games whose stock stays hidden)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--out", metavar="FILE", default=None,
                   help="append one JSON line per deal to FILE; run again to resume")
    p.add_argument("--from", dest="from_files", metavar="FILE", action="append", default=None,
                   help="report on results files (repeatable) without solving")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT", default=None,
                   help="run on this Dask scheduler's workers (pip install 'musical-cli[cluster]')")
    _add_rules(p)

    p = sub.add_parser("history", help="the games of the record, and the player's figures",
                       description="List the games of the player's record, newest first; with --stats, "
                                   "the player's figures; with --export, write them out as transcripts.")
    p.add_argument("count", nargs="?", metavar="N", type=_limit, default=None,
                   help="the N newest games, as the shell's 'history N' (the same as --limit N)")
    p.add_argument("--game", type=_game_name, default=None, metavar="GAME", help="only this game")
    p.add_argument("--limit", metavar="N", type=_limit, default=None,
                   help=f"the N newest games (default: {HISTORY_DEFAULT} listed, all exported)")
    p.add_argument("--stats", action="store_true",
                   help="per game and rule set: played, won, win %%, streaks, fewest moves, time played")
    p.add_argument("--export", metavar="DIR", help="write one transcript a game into DIR")
    p.add_argument("--json", action="store_true", help="one JSON object a line")
    # The usage and the epilog name every subcommand, as the parser has them.
    parser.subcommands = dict(sub.choices)
    names = list(sub.choices)
    parser.usage = f"musical [options]\n       musical {{{','.join(names)}}} ..."
    parser.epilog = f"Subcommands: {', '.join(names)} ('musical SUBCOMMAND --help')."
    return parser


def _rules(game: Game, args: argparse.Namespace, settings: Settings | None = None) -> tuple[Any, dict[str, str]]:
    """The rules the options ask for, and the options given explicitly (as text). ``settings``
    (the shell's, :mod:`musical_cli.settings`) give the options not given, where they go with them."""
    given: dict[str, str] = {}
    flags = rule_flags()
    for flag, value in _given_flags(args).items():
        option = next((o for g, o in flags[flag] if g is game), None)
        if option is None:
            owners = " and ".join(g.name for g, _ in flags[flag])
            chosen = "" if args.game or settings is None else f" (the game of {settings.source}; --game says another)"
            raise UsageError(f"{flag} is a rule option of {owners}; this game is {game.name}{chosen}")
        given[option.name] = value
    try:
        rules = game.rules_from_options(given)
    except RulesError as e:
        raise UsageError(str(e)) from None
    if settings is not None:
        from .settings import combine

        rules, _ = combine(game, given, settings.options_for(game))
    return rules, {k: game.rules_options(rules)[k] for k in given}


# Every symbol the program prints outside --ascii: the suits and the status line's middle dot.
SYMBOLS = "♣♦♥♠·"


# What Python's locale coercion (PEP 538) sets LC_CTYPE to when the locale it found was C.
_COERCED = ("C.UTF-8", "C.utf8", "UTF-8")


def ascii_locale(env: Mapping[str, str]) -> bool:
    """Did the user choose the C (POSIX) locale, whose character set is ASCII? Python does not
    say so through the streams' encodings: under LC_ALL=C it switches itself to UTF-8 (PEP 540),
    under LANG=C it sets LC_CTYPE to C.UTF-8 (PEP 538). So the variables are read as the C
    library reads them (LC_ALL, then LC_CTYPE, then LANG), a coerced LC_CTYPE standing for the
    LANG beneath it. No locale at all (a bare container) is not taken as a choice of ASCII."""
    c = ("C", "POSIX")
    if env.get("LC_ALL"):
        return env["LC_ALL"] in c
    lang = env.get("LANG", "")
    ctype = env.get("LC_CTYPE", "")
    if ctype and not (ctype in _COERCED and lang in c):
        return ctype in c
    return lang in c


def _ascii(args: argparse.Namespace, stream: TextIO) -> bool:
    if getattr(args, "ascii", False) or ascii_locale(os.environ):
        return True
    # Output that cannot carry the symbols gets letters rather than an encoding error: standard
    # output, and standard error too, where messages name cards.
    for s in (stream, sys.stderr):
        try:
            SYMBOLS.encode(getattr(s, "encoding", None) or "ascii")
        except (UnicodeEncodeError, LookupError):
            return True
    return False


def _never_fail_to_encode() -> None:
    """Text a stream's encoding cannot carry (a user's own input echoed in a message, under
    LC_ALL=C) is written escaped rather than ending the program."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):
                pass


def _out_width() -> int:
    """A terminal's width, or 80 for a pipe or a file."""
    return shutil.get_terminal_size((80, 24)).columns if sys.stdout.isatty() else 80


def emit(fragments: Fragments, stream: TextIO | None = None) -> None:
    """Styled text on a colour terminal; plain text (no escape codes) anywhere else."""
    stream = sys.stdout if stream is None else stream
    if wants_colour(stream):
        from prompt_toolkit.formatted_text import FormattedText
        from prompt_toolkit.shortcuts import print_formatted_text
        from prompt_toolkit.styles import Style

        print_formatted_text(FormattedText(fragments), style=Style.from_dict(STYLE), end="", file=stream)
    else:
        stream.write(plain(fragments))


# ---------------------------------------------------------------------------------------------


def _settings(args: argparse.Namespace) -> Settings | None:
    """The player's settings file (musical_cli/settings.py), for the interactive shell only: batch
    mode reads none, so that a script or a transcript plays the same for every user. Each thing
    wrong with the file is one line on standard error, and play goes on. The command line wins:
    a switch given stays in ``args``; the file fills in the rest."""
    from .settings import Settings, load

    settings = None
    if not args.no_config and sys.stdin.isatty() and sys.stdout.isatty():
        settings, problems = load()
        for text in problems:
            print(f"musical: {text}", file=sys.stderr)
    chosen = settings or Settings()
    args.coach = chosen.coach if args.coach is None else args.coach
    args.ascii = chosen.ascii if args.ascii is None else args.ascii
    # said as NO_COLOR says it, so that prompt_toolkit, which reads NO_COLOR too, agrees
    if chosen.color == "off":
        os.environ["NO_COLOR"] = "1"
    elif chosen.color == "on":  # no-color.org: a program's own setting wins over NO_COLOR
        os.environ.pop("NO_COLOR", None)
    return settings


def cmd_play(args: argparse.Namespace) -> int:
    from .language import Session

    settings = _settings(args)
    if settings is not None and settings.language:
        i18n.use(settings.language)
    game = game_named(args.game or (settings.game if settings else DEFAULT_GAME.name))
    rules, given_rules = _rules(game, args, settings)
    if args.difficulty:
        from . import advice

        if args.seed is not None or args.resume or args.winnable:
            raise UsageError("--difficulty chooses the deal: give no --seed, --winnable or --resume with it")
        why = advice.no_rated_deal(game, rules, args.difficulty)
        bar = _ProgressLine(sys.stderr) if sys.stderr.isatty() and not why else None
        try:
            deal = None if why else advice.deal_rated(
                game, rules, args.difficulty, random_deal_number,
                progress=None if bar is None else lambda rated, seconds: bar.show(
                    rating_progress(args.difficulty, rated, advice.RATED_ATTEMPTS, seconds)))
        finally:
            if bar is not None:
                bar.clear()
        if deal is None:
            raise FileError(why or advice.no_deal_rated(game, rules, args.difficulty))
    elif args.winnable:
        from . import advice

        if args.seed is not None or args.resume:
            raise UsageError("--winnable chooses the deal: give no --seed or --resume with it")
        deal = advice.winnable_deal(game, rules, random_deal_number)
        if deal is None:
            raise FileError(advice.no_winnable_deal(game, rules))
    else:
        deal = args.seed or random_deal_number()
    # The shell needs a terminal at both ends: a prompt drawn into a file is useless, and so is
    # a prompt nobody types at. Either end redirected is batch mode (which reads the terminal
    # until Ctrl-D when only standard output is redirected).
    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    if args.resume:
        _check_resume(args, given_rules, interactive)
    session = Session(game, deal, rules, ascii=_ascii(args, sys.stdout), interactive=interactive)
    session.coach = args.coach and interactive
    # how the deal was chosen is said in the layout's title
    session.mark(coached=session.coach, chosen="winnable" if args.winnable else args.difficulty,
                 difficulty=args.difficulty)
    if interactive:
        from .shell import Shell

        def open_recorder() -> Recorder:
            from .record import Recorder

            # Only the shell records; it offers the game left unfinished unless a deal was asked for.
            return Recorder.open(no_record=args.no_record, offer=args.seed is None and not args.resume)

        plain = dumb_terminal()
        # With a deal asked for, nothing from the record is shown before the first prompt: it is
        # opened once that prompt is drawn, so that the prompt comes sooner.
        later = args.seed is not None and not args.resume and not plain
        recorder = None if later else open_recorder()
        shell = Shell(session, plain=plain, recorder=recorder, open_recorder=open_recorder if later else None)
        if args.resume and recorder is not None:
            problem = recorder.resume_at_start()
            if problem is not None:
                recorder.close()
                print(f"musical: {problem}", file=sys.stderr)
                return EXIT_USAGE
        return shell.run()
    from .batch import Given, UsageConflict, read_lines, run_batch

    given = Given(args.game, args.seed.text if args.seed else None, given_rules)
    try:
        # Read as it comes, a line at a time: a command script has no size limit, and a random
        # deal's number is printed first (unless the input is a transcript, which names its deal).
        return run_batch(read_lines(sys.stdin), session, sys.stdout, sys.stderr, given,
                         announce=args.seed is None)
    except UsageConflict as e:
        raise UsageError(str(e)) from None


def _check_resume(args: argparse.Namespace, given_rules: dict[str, str], interactive: bool) -> None:
    from .record import recording_refused

    if not interactive:
        raise UsageError("--resume is for the interactive shell; batch mode keeps no record "
                         "('musical replay @ID' shows a recorded game)")
    if args.seed is not None or given_rules or args.game is not None:
        raise UsageError("--resume goes on with a recorded game, with its own deal and rules: "
                         "give no --seed, --game or rule option with it")
    refused = recording_refused(args.no_record)
    if refused:
        raise UsageError(f"--resume goes on with a recorded game; {refused} keeps no record")


def cmd_deal(args: argparse.Namespace) -> int:
    from . import advice

    game = game_named(args.game) if args.game else DEFAULT_GAME
    rules, _ = _rules(game, args)
    ascii = _ascii(args, sys.stdout)
    out = sys.stdout
    # A rating can take the solver seconds (a lost or undecided deal): only a few deals are rated,
    # so that a long range still prints at once.
    rate = sum(len(group) for group in args.deals) <= advice.RATE_AT_MOST
    for group in args.deals:
        for deal in group:
            state = game.opening(deal, rules)
            rated = advice.rating(game, rules, state) if rate else None
            if args.json:
                record = opening_record(game, deal, state)
                if rated is not None:  # only where bands are calibrated (docs/difficulty.md)
                    record["difficulty"] = rated
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
            else:
                # a stock of 44 cards is a line of 150 columns: broken between cards, as the
                # shell breaks long lines, at the terminal's width (80 for a pipe or a file)
                emit(wrap_fragments(opening_text(game, deal, state, ascii), _out_width()), out)
                if rated is not None:
                    out.write(f"difficulty: {rated}\n")
    return 0


def _read_transcript(path: str):
    """(transcript or TranscriptError); an unreadable file is a UsageError (exit 2). ``@ID`` is
    game ID of the player's record, read without writing to it."""
    from .files import read_limited
    from .transcript import MAX_BYTES, TranscriptError, read_bytes, read_transcript

    if path.startswith("@"):
        from .record import recorded_text
        from .store import StoreError

        try:
            text = recorded_text(path)
        except (StoreError, ValueError) as e:
            raise FileError(str(e)) from None
        try:
            return read_transcript(text)
        except TranscriptError as e:
            return e
    try:
        data = read_limited(path, MAX_BYTES)
    except OSError as e:
        raise FileError(f"cannot read {path}: {e.strerror or e}") from None
    try:
        return read_bytes(data)
    except TranscriptError as e:
        return e


def _verdict(t, ascii: bool = False) -> tuple[int, str, dict[str, Any]]:
    from .transcript import TranscriptError

    if isinstance(t, TranscriptError):
        text = t.text(ascii)
        return EXIT_INVALID, text, {"result": "invalid", "moves": t.moves, "line": t.line, "reason": text}
    n = len(t.record.moves)
    now = standing(t.record.game, t.final, t.record.moves)
    return now.status, now.text, {"result": now.result, "moves": n, "line": None, "reason": now.text}


def cmd_verify(args: argparse.Namespace) -> int:
    t = _read_transcript(args.file)
    status, text, record = _verdict(t, _ascii(args, sys.stdout))
    if args.json:
        print(json.dumps(record, ensure_ascii=False))
    else:
        if status == EXIT_INVALID and args.file != "-":
            text = f"{args.file}: {text}"
        print(text, file=sys.stderr if status == EXIT_INVALID else sys.stdout)
    return status


def cmd_replay(args: argparse.Namespace) -> int:
    from .transcript import TranscriptError

    t = _read_transcript(args.file)
    ascii = _ascii(args, sys.stdout)
    status, text, _ = _verdict(t, ascii)
    if isinstance(t, TranscriptError):
        print(f"{args.file}: {text}" if args.file != "-" else text, file=sys.stderr)
        return status
    record = t.record
    states = list(record.states())
    # A transcript read from standard input leaves no terminal to read keys from.
    if sys.stdout.isatty() and sys.stdin.isatty() and args.file != "-":
        return _replay_on_terminal(record, states, status, text, ascii)
    for n in range(len(states)):
        _show_position(record, states, n, ascii)
    print(text)
    return status


def _show_position(record, states: list, n: int, ascii: bool) -> None:
    if n:
        emit([("class:label", f"{n}. {record.moves[n - 1]}\n")])
    emit(layout(record.game, states[n], record.deal.text, n, ascii))


REPLAY_KEYS = {"n": "next", " ": "next", "b": "back", "p": "back", "e": "end", "$": "end", "q": "quit"}


def _replay_on_terminal(record, states: list, status: int, verdict: str, ascii: bool) -> int:
    """Step through a game at the terminal: Enter, n or space shows the next move, b or p the one
    before, a number and Enter that move, e or $ the end, q quits. The verdict is the game's
    only once its end has been shown; quitting before that says where it stopped and exits 4
    (no verdict), since the moves after it were not shown."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.keys import Keys
    from prompt_toolkit.output import create_output
    from prompt_toolkit.output.vt100 import Vt100_Output

    bindings = KeyBindings()

    def key(result: str):
        def handler(event) -> None:
            if not event.current_buffer.text:  # a letter after digits waits for Enter or Backspace
                event.app.exit(result=result)
        return handler

    for name, result in REPLAY_KEYS.items():
        bindings.add(name)(key(result))

    @bindings.add(Keys.Any)
    def _digits_only(event) -> None:
        if event.data.isascii() and event.data.isdigit():
            event.current_buffer.insert_text(event.data)

    @bindings.add("enter")
    def _enter(event) -> None:
        event.app.exit(result=event.current_buffer.text or "next")

    # No cursor-position request: this prompt has no toolbar to place at the screen's foot.
    output = create_output(stdout=sys.stdout)
    if isinstance(output, Vt100_Output):
        output.enable_cpr = False
    prompt: PromptSession[str] = PromptSession(key_bindings=bindings, output=output)
    last = len(states) - 1
    sep = " - " if ascii else " · "
    n, shown, seen_end = 0, None, False
    note = ""
    while True:
        if n != shown:
            _show_position(record, states, n, ascii)
            shown = n
            if n == last:
                seen_end = True
                print(verdict)
        if n == last:
            where = f"move {n} of {last}, the end{sep}Enter quits, b back, N go to move N"
        else:
            where = f"move {n} of {last}{sep}Enter next, b back, N go to move N, e end, q quit"
        try:
            answer = prompt.prompt(f"{note}{where}: ")
        except EOFError:
            answer = "quit"
        note = ""
        if answer == "next" and n == last or answer == "quit":
            break
        if answer == "next":
            n += 1
        elif answer == "back":
            n = max(n - 1, 0)
        elif answer == "end":
            n = last
        elif len(answer.lstrip("0")) <= len(str(last)) and int(answer) <= last:
            n = int(answer)
        else:
            note = f"there is no move {answer}: the moves are 0 to {last}\n"
    if seen_end:
        if n != last:  # the verdict is the last word, as in batch mode
            print(verdict)
        return status
    print(f"stopped at move {n} of {last}")
    return EXIT_UNKNOWN


def cmd_solve(args: argparse.Namespace) -> int:
    from .solver import solve
    from .transcript import GameRecord, format_transcript

    if args.file is not None:
        if args.seed is not None or args.game is not None or _given_flags(args):
            raise UsageError("give either a transcript FILE or --seed/--game and rule options, not both")
        t = _read_transcript(args.file)
        status, text, _ = _verdict(t)
        if status == EXIT_INVALID:
            print(f"{args.file}: {text}", file=sys.stderr)
            return EXIT_INVALID
        record, state = t.record, t.final
    else:
        if args.seed is None:
            raise UsageError("which deal? give --seed N or a transcript FILE")
        game = game_named(args.game) if args.game else DEFAULT_GAME
        rules, _ = _rules(game, args)
        record = GameRecord(game, args.seed, rules)
        state = record.start()
    progress = _ProgressLine(sys.stderr) if sys.stderr.isatty() else None
    try:
        solution = solve(record.game, state, budget=_budget(args, 60.0), nodes=args.nodes, progress=progress)
    finally:
        if progress is not None:
            progress.clear()
    options = record.game.rules_options(record.rules)
    if args.json:
        redeals: Any = options.get("redeals")
        if redeals is not None and redeals.isdigit():
            redeals = int(redeals)
        print(json.dumps({"seed": record.deal.json, "redeals": redeals, "result": solution.result,
                          "moves": [str(m) for m in record.moves + solution.moves] if solution.result == "won" else [],
                          "nodes": solution.nodes, "seconds": round(solution.seconds, 4)}))
    elif solution.result == "won":
        whole = GameRecord(record.game, record.deal, record.rules, record.moves + solution.moves)
        sys.stdout.write(format_transcript(whole, Outcome.WON))
    elif sys.stdout.isatty():
        # A person reads this: the word, and what it means. A pipe gets the bare word (scripts).
        print("\n".join(wrap(_solve_sentence(solution, args, record.deal), _out_width())))
    else:
        print(solution.result)
    return {"won": EXIT_WON, "lost": EXIT_NOT_WON}.get(solution.result, EXIT_UNKNOWN)


def _solve_sentence(solution: Any, args: argparse.Namespace, deal: Any) -> str:
    """``musical solve``'s answer on a terminal when there is no line to print: the result word
    first, as a pipe gets it, then what was proven, or what ran out."""
    what = f"the position at the end of {args.file}" if args.file is not None else f"deal {deal}"
    searched = f"{solution.nodes:,} position{'' if solution.nodes == 1 else 's'}"
    if solution.result == "lost":
        return f"lost: {what} cannot be won (proven; {searched} searched)"
    if args.nodes is not None and solution.nodes >= args.nodes:
        return f"unknown: no win found and no loss proven in {searched}; a larger --nodes searches further"
    return (f"unknown: no win found and no loss proven in {solution.seconds:.0f} s ({searched}); "
            "a larger --budget searches longer")


class _ProgressLine:
    """A progress line on a terminal's standard error (``musical solve``'s, ``musical review``'s),
    redrawn in place twice a second, then wiped. Only a carriage return and spaces: no escape
    code, so a dumb terminal shows it too."""

    EVERY = 0.5  # seconds between redraws (the solver calls every 0.15 s or so)

    def __init__(self, stream: TextIO):
        import time

        self.stream = stream
        self.clock = time.monotonic
        self.last = self.clock()
        self.width = 0  # of the line on the screen

    def show(self, text: str) -> None:
        now = self.clock()
        if now - self.last < self.EVERY:
            return
        self.last = now
        line, self.width = "\r" + text.ljust(self.width), max(self.width, len(text))
        # (width first: a Ctrl-C while this is written still finds the line to wipe)
        self.stream.write(line)
        self.stream.flush()

    def __call__(self, nodes: int, seconds: float) -> None:
        self.show(search_progress(nodes, seconds))

    ECHO = 2  # columns past the line a terminal's echo of Ctrl-C ("^C") takes: wiped too

    def clear(self) -> None:
        if self.width:
            self.stream.write("\r" + " " * (self.width + self.ECHO) + "\r")
            self.stream.flush()
            self.width = 0


def cmd_review(args: argparse.Namespace) -> int:
    from .advice import trail_of
    from .advice_commands import review_game, review_lines
    from .transcript import TranscriptError

    t = _read_transcript(args.file)
    if isinstance(t, TranscriptError):
        text = t.text(_ascii(args, sys.stdout))
        print(f"{args.file}: {text}" if args.file != "-" else text, file=sys.stderr)
        return EXIT_INVALID
    record = t.record
    if "solver" not in record.game.players:
        raise NotAvailable(f"{record.game.title} has no solver yet: no review")
    states = list(record.states())
    bar = _ProgressLine(sys.stderr) if sys.stderr.isatty() else None
    try:
        got = review_game(record.game, states[0], trail_of(states, record.moves),
                          progress=bar.show if bar is not None else None)
    finally:
        if bar is not None:
            bar.clear()
    if args.json:
        for ply in got.plies:
            print(json.dumps(ply.record()))
        print(json.dumps(got.summary()))
    else:
        emit([(f"class:{style}" if style else "", text + "\n") for text, style in review_lines(got, record.game)])
    return EXIT_INTERRUPTED if got.stopped else 0


def _budget(args: argparse.Namespace, default: float) -> float | None:
    """Seconds a search may take: --budget, else none when --nodes bounds it (so that the answer
    does not depend on the machine), else ``default``."""
    if args.budget is not None:
        return args.budget
    return None if args.nodes is not None else default


def cmd_stats(args: argparse.Namespace) -> int:
    from .stats import ResultsError, catching_interrupts

    if args.from_files:
        given = [flag for flag, value in (("N|A-B", args.deals), ("--out", args.out), ("--workers", args.workers),
                                          ("--scheduler", args.scheduler), ("--budget", args.budget),
                                          ("--nodes", args.nodes),
                                          ("--player", args.player), ("--game", args.game),
                                          *_given_flags(args).items()) if value]
        if given:
            raise UsageError(f"--from reports on the files as they are: {given[0]} goes with a run, "
                             "not with --from")
    elif not args.deals:
        raise UsageError("which deals? give N or A-B (or --from FILE to report on a results file); "
                         "your own games' figures are 'musical history --stats'")
    # Ctrl-C, pressed any number of times, only asks the run to stop: the report still comes, then
    # exit status 130; presses after that are ignored until the program exits.
    with catching_interrupts(then_ignore=True) as interrupts:
        try:
            report = _stats_report(args)
        except ResultsError as e:
            raise FileError(str(e)) from None
        interrupted = report.interrupted or interrupts.requested
        report.interrupted = interrupted
        _print_stats(args, report)
    return EXIT_INTERRUPTED if interrupted else 0


def _stats_report(args: argparse.Namespace):
    from .stats import ResultsFile, report_from_files, run_key, run_stats, summarise

    if args.from_files:
        return report_from_files(args.from_files, GAMES)
    game = game_named(args.game) if args.game else DEFAULT_GAME
    rules, _ = _rules(game, args)
    player = args.player or "solver"
    if args.workers is not None and args.workers < 1:
        raise UsageError("--workers must be 1 or more")
    if args.workers is not None and args.scheduler:
        raise UsageError("--workers is for this machine; with --scheduler the cluster's workers run the deals")
    if player not in game.players:
        if player == "blind" and "solver" in game.players:
            raise UsageError(f"--player blind is for games whose stock stays hidden; {game.title}'s "
                             "is seen after the first pass")
        raise NotAvailable(f"{game.title} has no {player} yet" if player == "solver"
                           else f"{game.title} has no {player} player yet")
    if args.nodes is not None and player == "blind":
        raise UsageError("--nodes limits the solver's search; the blind player's effort is fixed "
                         "(its rollouts), the same on every machine")
    deals = list(dict.fromkeys(d for group in args.deals for d in group))  # a deal named twice runs once
    results = None
    todo = deals
    if args.out is not None:
        results = ResultsFile(args.out, run_key(game, rules, player))
        if results.torn:
            print(f"musical: {args.out}: its last line was cut short (a run stopped while writing it); "
                  "that deal is done again", file=sys.stderr)
        todo = [d for d in deals if d.text not in results.results]
        if len(todo) < len(deals):
            print(f"musical: {args.out} already holds {len(deals) - len(todo)} of these deals; "
                  f"{plural(len(todo), 'deal')} to go", file=sys.stderr)
    on_result = results.add if results is not None else None
    run = partial(run_stats, todo, rules, workers=args.workers,
                  budget=_budget(args, 10.0), game=game, player=player, nodes=args.nodes)
    try:
        if args.scheduler:
            from .cluster import ClusterError, cluster_executor

            try:
                with cluster_executor(args.scheduler) as (executor, threads):
                    report = _with_progress(args, player, todo, partial(run, executor=executor,
                                                                          in_flight=2 * threads + 2), on_result)
            except ClusterError as e:
                raise FileError(str(e)) from None
        else:
            report = _with_progress(args, player, todo, run, on_result)
    finally:
        if results is not None:
            results.close()
    if results is None:
        return report
    # The report covers the whole range: what this run finished and what the file held before.
    done = [results.results[d.text] for d in deals if d.text in results.results]
    return summarise(done, game, rules, player, report.seconds_total, report.interrupted)


def _with_progress(args: argparse.Namespace, player: str, todo: list, run, on_result):
    if not sys.stderr.isatty() or dumb_terminal() or not todo:
        return run(on_result=on_result)
    # prompt_toolkit's bar on the terminal (not a dumb one, which takes no escape sequence);
    # Ctrl-C in it sends this process SIGINT, which asks run_stats to stop and report what
    # finished.
    from prompt_toolkit.output import create_output
    from prompt_toolkit.shortcuts import ProgressBar
    from prompt_toolkit.shortcuts.progress_bar.base import ProgressBarCounter

    verb = "playing" if player == "blind" else "solving"
    with ProgressBar(title=f"{verb} {plural(len(todo), 'deal')}", output=create_output(stdout=sys.stderr)) as bar:
        counter: ProgressBarCounter[object] = bar(label="deals", total=len(todo))

        def tick(result) -> None:
            if on_result is not None:
                on_result(result)
            counter.item_completed()

        return run(on_result=tick)


def _print_stats(args: argparse.Namespace, report) -> None:
    if args.json:
        print(json.dumps(report.to_json()))
        return
    game = game_named(report.game)
    n = max(report.deals, 1)
    rd = ", ".join(f"{k} {v}" for k, v in report.options.items())

    def pct(k: int) -> str:
        return f"{k:>6} ({100 * k / n:5.1f}%)"

    who = "" if report.player == "solver" else f", played by the {report.player} player"
    source = f" (from {' and '.join(args.from_files)})" if args.from_files else ""
    # the name players know the variant by, then its options in full ("Persian Rug (redeals 1, ...)")
    rules = game.rules_from_options(report.options)
    lines = [f"{game.variant_title(rules)} ({rd}){who}, {plural(report.deals, 'deal')}{source}"
             + (" (interrupted: the deals finished so far)" if report.interrupted else ""),
             f"  won      {pct(report.won)}",
             f"  lost     {pct(report.lost)}",
             f"  unknown  {pct(report.unknown)}"]
    low, high = report.interval
    lines.append(f"  win rate 95% interval {100 * low:.1f}% to {100 * high:.1f}% (Wilson; unknown deals "
                 "counted as lost, then as won)")
    if game.has_greedy:
        lines.append(f"  greedy   {pct(report.greedy_won)}  won by {game.greedy_text}")
    total = "summed" if args.from_files else "in all"
    lines.append(f"  seconds per deal: median {report.median:.3f}, 90th percentile {report.p90:.3f}, "
                 f"max {report.max:.3f}; {report.seconds_total:.1f} {total}")
    # wrapped between words at the terminal's width, 80 columns in a pipe (as batch mode does),
    # each line's rest indented under its words
    width = shutil.get_terminal_size((80, 24)).columns if sys.stdout.isatty() else 80
    for text in lines:
        lead = len(text) - len(text.lstrip(" "))
        print(textwrap.fill(text, width=width - 1, subsequent_indent=" " * (lead + 4),
                            break_on_hyphens=False, break_long_words=False))


HISTORY_DEFAULT = 20  # games listed by 'musical history' without --limit


def cmd_history(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .record import STATS_LEGEND, export, figures_json, figures_table, history_json, history_table
    from .store import Store, StoreError, default_path

    if args.stats and args.export:
        raise UsageError("give --stats or --export, not both")
    if args.count is not None:
        if args.limit is not None and args.limit != args.count:
            raise UsageError(f"give N or --limit N, not both ({args.count} and --limit {args.limit})")
        args.limit = args.count
    try:
        if not default_path().exists():
            print("no game recorded yet", file=sys.stderr if args.json else sys.stdout)
            return 0
        # Opened for writing only to bring an old file's schema up to date; no game is written.
        # Where it cannot be written (a read-only disk), it is read as it is.
        try:
            store = Store.open(create=False)
        except StoreError as e:
            if e.kind != "unavailable" or e.locked:
                raise
            store = Store.open_for_reading()
    except StoreError as e:
        raise FileError(str(e)) from None
    try:
        limit = args.limit
        if not args.stats and not args.export and limit is None:
            limit = HISTORY_DEFAULT
        rows = store.games(game=args.game, limit=None if args.stats else limit)
        total = store.count() if args.game is None else len(store.games(game=args.game))
        if args.export:
            try:
                paths = export(rows, store, Path(args.export).expanduser())
            except OSError as e:
                raise FileError(f"cannot export to {args.export}: {e.strerror or e}") from None
            print(f"exported {plural(len(paths), 'game')} to {args.export}")
            return 0
    except StoreError as e:
        raise FileError(str(e)) from None
    finally:
        store.close()
    if not rows:
        print("no game recorded yet" if args.game is None else f"no {args.game} game recorded yet",
              file=sys.stderr if args.json else sys.stdout)
        return 0
    width = _out_width()
    if args.stats:
        lines = figures_json(rows) if args.json else figures_table(rows, width) + [""] + wrap(STATS_LEGEND, width)
    else:
        lines = history_json(rows) if args.json else history_table(rows, width)
    for text in lines:
        print(text)
    if not args.json and not args.stats and total > len(rows):
        print(f"({total - len(rows)} older: --limit {total} lists them all)")
    return 0


def wrap(text: str, width: int) -> list[str]:
    """A paragraph as lines that fit ``width`` - 1 columns, broken between words."""
    return textwrap.wrap(text, max(width, 40) - 1, break_on_hyphens=False, break_long_words=False)


def options_text(game: Game, rules: Any) -> str:
    return ", ".join(f"{k} {v}" for k, v in game.rules_options(rules).items())


COMMANDS = {"deal": cmd_deal, "verify": cmd_verify, "replay": cmd_replay, "solve": cmd_solve, "stats": cmd_stats,
            "history": cmd_history, "review": cmd_review}


def main(argv: Sequence[str] | None = None) -> int:
    _never_fail_to_encode()
    i18n.use("")  # the environment's language; the shell's settings may name another
    parser = build_parser()
    args = parser.parse_args(argv)  # exits 2 on a usage error, as argparse does
    try:
        if args.command is None:
            return cmd_play(args)
        return COMMANDS[args.command](args)
    except UsageError as e:
        # A subcommand's mistake shows that subcommand's usage, as argparse's own errors do.
        own = parser.subcommand(args.command) if args.command else parser
        own.print_usage(sys.stderr)
        print(f"{own.prog}: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except (FileError, NotAvailable) as e:
        print(f"musical: {e}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("musical: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (e.g. `musical deal 1-1000 | head`): not an error worth a word.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as e:  # a user never sees a traceback; MUSICAL_DEBUG=1 shows it
        if os.environ.get("MUSICAL_DEBUG"):
            raise
        print(f"musical: internal error: {type(e).__name__}: {e} (run with MUSICAL_DEBUG=1 for details "
              "and please report it)", file=sys.stderr)
        return EXIT_SOFTWARE
