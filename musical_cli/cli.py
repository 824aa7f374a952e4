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
from .i18n import N_, _, joined, ngettext, pgettext

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

PROG = "musical"  # the program's name, before its messages on standard error
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
        raise argparse.ArgumentTypeError(_("{text} is not a number of seconds above 0").format(text=repr(text)))
    return value


def _node_count(text: str) -> int:
    try:
        value = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(
            _("{text} is not a number of search nodes (a whole number above 0)").format(text=repr(text)))
    return value


def _game_name(text: str) -> str:
    try:
        return game_named(text).name
    except KeyError:
        known = ", ".join(repr(n) for n in sorted(GAMES))
        raise argparse.ArgumentTypeError(
            _("no game {name} (choose from {known})").format(name=repr(text), known=known)) from None


def _dest(flag: str) -> str:
    return "rule_" + flag.lstrip("-").replace("-", "_")




def _limit(text: str) -> int:
    # A limit past the record's largest id lists every game (whole_number caps it).
    from .commands import whole_number

    n = whole_number(text)
    if n is None:
        raise argparse.ArgumentTypeError(_("{text} is not a whole number from 1 up").format(text=repr(text)))
    return n


def _add_rules(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", type=_game_name, default=None, metavar="GAME",
                   help=_("the game: {games} (default {default})").format(games=", ".join(GAMES),
                                                                          default=DEFAULT_GAME.name))
    # One flag per rule option that some game declares; a flag two games share is one flag. The
    # titles and the options' help are the games' words, marked where the games declare them.
    for flag, owners in rule_flags().items():
        first = owners[0][1]
        # argparse reads a help text as a %-format: a % in the words (a translation's) is doubled
        text = "; ".join(f"{_(g.title)}: {_(o.help)}" for g, o in owners).replace("%", "%%")
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
NODES_CAVEAT = N_("with the same install: in Musical, one with the C core and one without may "
                  "differ, as the core gives the local search fewer of the nodes")

# argparse's own words: i18n.use() has argparse take them from this catalog, and they are marked
# here so that the catalog keeps them (the catalogs are extracted from this package only). The
# ones a user can meet, as Python 3.11's argparse words them ("optional arguments" is 3.10's
# "options"); the errors only a programmer's mistake raises are left in English.
ARGPARSE_WORDS = (
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),
    N_("optional arguments"),
    N_("show this help message and exit"),
    N_("%(prog)s: error: %(message)s\n"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("unrecognized arguments: %s"),
    N_("not allowed with argument %s"),
    N_("ignored explicit argument %r"),
    N_("the following arguments are required: %s"),
    N_("one of the arguments %s is required"),
    N_("expected one argument"),
    N_("expected at most one argument"),
    N_("expected at least one argument"),
    ngettext("expected %s argument", "expected %s arguments", 1),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("unexpected option string: %s"),
    N_("invalid %(type)s value: %(value)r"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("can't open '%(filename)s': %(error)s"),
)



class _Parser(argparse.ArgumentParser):
    """The top-level parser, which knows its subcommands' parsers (for their usage lines)."""

    subcommands: dict[str, argparse.ArgumentParser] = {}

    def subcommand(self, name: str) -> argparse.ArgumentParser:
        return self.subcommands[name]


def build_parser() -> _Parser:
    # Built when it is used, after i18n.use(): its words are in the language in use.
    parser = _Parser(
        prog="musical",
        description=_("Musical (Betsy Ross) patience: play at a prompt, or feed commands on standard "
                      "input (batch mode). See musical(1)."),
    )
    parser.add_argument("--version", action="version", version=f"musical {__version__}",
                        help=_("show program's version number and exit"))
    parser.add_argument("--seed", metavar="N", type=_deal_number,
                        help=_("play deal N (1 up to 10^20, or msN); default: a random deal, shown at once"))
    parser.add_argument("--ascii", action=argparse.BooleanOptionalAction, default=None,
                        help=_("letters (AC, TD) instead of suit symbols"))
    parser.add_argument("--resume", action="store_true",
                        help=_("go on with the unfinished game of the record, where it was left"))
    parser.add_argument("--winnable", action="store_true",
                        help=_("a random deal the solver proves winnable under the rules given"))
    parser.add_argument("--difficulty", metavar="D", choices=("easy", "medium", "hard", "lost"),
                        help=_("a random deal of this rating: easy, medium, hard, lost (docs/difficulty.md)"))
    parser.add_argument("--coach", action=argparse.BooleanOptionalAction, default=None,
                        help=_("the live coach: the status line says whether the game can still be won"))
    parser.add_argument("--no-config", action="store_true",
                        help=_("read no settings file and write none: every setting at its default"))
    parser.add_argument("--no-record", action="store_true",
                        help=_("keep no record of this shell's games (also MUSICAL_NO_RECORD=1)"))
    _add_rules(parser)
    sub = parser.add_subparsers(dest="command", metavar="SUBCOMMAND", prog="musical")
    transcript_file = _("a transcript, - for standard input, or @ID for a recorded game")
    letters = _("letters instead of suit symbols")
    one_json = _("print one JSON object")
    deal_or_range = _("a deal number (1 up to 10^20, or msN), or a range of them A-B")

    p = sub.add_parser("deal", help=_("print the opening layout of deals"),
                       description=_("Print the opening layout of each deal named: N is deal N, A-B the "
                                     "deals A to B."))
    p.add_argument("deals", nargs="+", metavar="N|A-B", type=_deal_range, help=deal_or_range)
    p.add_argument("--json", action="store_true", help=_("one JSON object a line"))
    p.add_argument("--ascii", action="store_true", help=letters)
    _add_rules(p)

    p = sub.add_parser("verify", help=_("check a transcript: legal? won?"),
                       description=_("Check that every move of a transcript is legal, and say whether "
                                     "the game is won (exit status 0 won, 1 not won, 3 illegal)."))
    p.add_argument("file", metavar="FILE", help=transcript_file)
    p.add_argument("--json", action="store_true", help=one_json)
    p.add_argument("--ascii", action="store_true", help=letters)

    p = sub.add_parser("replay", help=_("show a transcript's game move by move"),
                       description=_("Show a transcript's game position by position, then its verdict; "
                                     "on a terminal, step through it with Enter, b, a move number, e and q."))
    p.add_argument("file", metavar="FILE", help=transcript_file)
    p.add_argument("--ascii", action="store_true", help=letters)

    p = sub.add_parser("review", help=_("each move of a game with its verdict, and the move that lost it"),
                       description=_("Review a game: each move with the solver's verdict before and after it, "
                                     "the moves that lost a winnable game, or that it was lost from the deal."))
    p.add_argument("file", metavar="FILE", help=transcript_file)
    p.add_argument("--json", action="store_true", help=_("one JSON object a move, then a summary object"))

    p = sub.add_parser("solve", help=_("decide whether a deal (or a transcript's end) can be won"),
                       description=_("Decide whether a deal, or the position at the end of a transcript, "
                                     "can be won, and print a winning game as a transcript when it can."))
    p.add_argument("file", metavar="FILE", nargs="?", help=_("solve the position at the end of this transcript"))
    p.add_argument("--seed", metavar="N", type=_deal_number, help=_("the deal to solve"))
    p.add_argument("--budget", metavar="SECONDS", type=_positive_float, default=None,
                   help=_("give up with 'unknown' after this long (default 60; none with --nodes)"))
    p.add_argument("--nodes", metavar="N", type=_node_count, default=None,
                   # TRANSLATORS: {caveat} is "with the same install: in Musical, one with the C core ..."
                   help=_("give up with 'unknown' after N search nodes: the same answer on every "
                          "machine, however loaded, {caveat}").format(caveat=_(NODES_CAVEAT)))
    p.add_argument("--json", action="store_true", help=one_json)
    _add_rules(p)

    p = sub.add_parser("stats", help=_("how winnable the game is over many deals"),
                       description=_("Solve (or, with --player blind, play) many deals and report how many "
                                     "are won, lost or undecided, and how long they took: N is deal N, A-B "
                                     "the deals A to B (give as many as you like); the figures of your own "
                                     "games are 'musical history --stats'."))
    p.add_argument("deals", nargs="*", metavar="N|A-B", type=_deal_range, help=deal_or_range)
    p.add_argument("--workers", metavar="W", type=int, default=None,
                   help=_("parallel processes (default: one per core)"))
    p.add_argument("--budget", metavar="SECONDS", type=_positive_float, default=None,
                   help=_("per deal, before it counts as unknown (default 10; none with --nodes)"))
    p.add_argument("--nodes", metavar="N", type=_node_count, default=None,
                   # TRANSLATORS: {caveat} is "with the same install: in Musical, one with the C core ..."
                   help=_("per deal, search nodes before it counts as unknown: the same results on "
                          "every machine, however loaded, {caveat}").format(caveat=_(NODES_CAVEAT)))
    p.add_argument("--player", choices=("solver", "blind"), default=None,
                   help=_("'solver' sees the stock order (default); 'blind' plays each deal seeing "
                          "only what a player sees (for games whose stock stays hidden)"))
    p.add_argument("--json", action="store_true", help=one_json)
    p.add_argument("--out", metavar="FILE", default=None,
                   help=_("append one JSON line per deal to FILE; run again to resume"))
    p.add_argument("--from", dest="from_files", metavar="FILE", action="append", default=None,
                   help=_("report on results files (repeatable) without solving"))
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT", default=None,
                   help=_("run on this Dask scheduler's workers (pip install 'musical-cli[cluster]')"))
    _add_rules(p)

    p = sub.add_parser("history", help=_("the games of the record, and the player's figures"),
                       description=_("List the games of the player's record, newest first; with --stats, "
                                     "the player's figures; with --export, write them out as transcripts."))
    p.add_argument("count", nargs="?", metavar="N", type=_limit, default=None,
                   help=_("the N newest games, as the shell's 'history N' (the same as --limit N)"))
    p.add_argument("--game", type=_game_name, default=None, metavar="GAME", help=_("only this game"))
    p.add_argument("--limit", metavar="N", type=_limit, default=None,
                   help=_("the N newest games (default: {count} listed, all exported)").format(count=HISTORY_DEFAULT))
    p.add_argument("--stats", action="store_true",
                   help=_("per game and rule set: played, won, win %%, streaks, fewest moves, time played"))
    p.add_argument("--export", metavar="DIR", help=_("write one transcript a game into DIR"))
    p.add_argument("--json", action="store_true", help=_("one JSON object a line"))
    # The usage and the epilog name every subcommand, as the parser has them; the usage's second
    # line stands under the first, after argparse's "usage: " in the language in use.
    parser.subcommands = dict(sub.choices)
    names = list(sub.choices)
    parser.usage = (_("musical [options]") + "\n" + " " * len(_("usage: "))
                    + f"musical {{{','.join(names)}}} ...")
    parser.epilog = _("Subcommands: {names} ('musical SUBCOMMAND --help').").format(names=", ".join(names))
    return parser


def _rules(game: Game, args: argparse.Namespace, settings: Settings | None = None) -> tuple[Any, dict[str, str]]:
    """The rules the options ask for, and the options given explicitly (as text). ``settings``
    (the shell's, :mod:`musical_cli.settings`) give the options not given, where they go with them."""
    given: dict[str, str] = {}
    flags = rule_flags()
    for flag, value in _given_flags(args).items():
        option = next((o for g, o in flags[flag] if g is game), None)
        if option is None:
            owners = joined([g.name for g, o in flags[flag]])
            chosen = "" if args.game or settings is None else _(
                # TRANSLATORS: {file} is the settings file, as ~/.config/musical/config.toml
                " (the game of {file}; --game says another)").format(file=settings.source)
            # TRANSLATORS: {owners} are games' names as --game takes them ("calculation"); so is {game}
            raise UsageError(_("{flag} is a rule option of {owners}; this game is {game}{chosen}").format(
                flag=flag, owners=owners, game=game.name, chosen=chosen))
        given[option.name] = value
    try:
        rules = game.rules_from_options(given)
    except RulesError as e:
        raise UsageError(str(e)) from None
    if settings is not None:
        from .settings import combine

        rules, left_out = combine(game, given, settings.options_for(game))
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
            _complain(text)
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
            raise UsageError(_("--difficulty chooses the deal: give no --seed, --winnable or --resume with it"))
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
            raise UsageError(_("--winnable chooses the deal: give no --seed or --resume with it"))
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
                _complain(problem)
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
        raise UsageError(_("--resume is for the interactive shell; batch mode keeps no record "
                           "('musical replay @ID' shows a recorded game)"))
    if args.seed is not None or given_rules or args.game is not None:
        raise UsageError(_("--resume goes on with a recorded game, with its own deal and rules: "
                           "give no --seed, --game or rule option with it"))
    refused = recording_refused(args.no_record)
    if refused:
        # TRANSLATORS: {what} is what turned the record off: "--no-record" or "MUSICAL_NO_RECORD"
        raise UsageError(_("--resume goes on with a recorded game; {what} keeps no record").format(what=refused))


def cmd_deal(args: argparse.Namespace) -> int:
    from . import advice

    game = game_named(args.game) if args.game else DEFAULT_GAME
    rules, given = _rules(game, args)
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
                    # TRANSLATORS: {rating} stays English, as --difficulty takes it: easy, medium, hard, lost, unknown
                    out.write(_("difficulty: {rating}").format(rating=rated) + "\n")
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
        # TRANSLATORS: {reason} is the system's, in English: "No such file or directory"
        raise FileError(_("cannot read {path}: {reason}").format(path=path, reason=e.strerror or e)) from None
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
    status, text, record_json = _verdict(t, ascii)
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
            # TRANSLATORS: the replay's prompt at the game's end; Enter, b and N are the keys (N a move's
            # number), the same in every language; {sep} is " · "
            where = _("move {n} of {last}, the end{sep}Enter quits, b back, N go to move N").format(
                n=n, last=last, sep=sep)
        else:
            # TRANSLATORS: the replay's prompt; Enter, b, N, e and q are the keys (N a move's number), the
            # same in every language; {sep} is " · "
            where = _("move {n} of {last}{sep}Enter next, b back, N go to move N, e end, q quit").format(
                n=n, last=last, sep=sep)
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
            note = _("there is no move {answer}: the moves are 0 to {last}").format(answer=answer, last=last) + "\n"
    if seen_end:
        if n != last:  # the verdict is the last word, as in batch mode
            print(verdict)
        return status
    print(_("stopped at move {n} of {last}").format(n=n, last=last))
    return EXIT_UNKNOWN


def cmd_solve(args: argparse.Namespace) -> int:
    from .solver import solve
    from .transcript import GameRecord, format_transcript

    if args.file is not None:
        if args.seed is not None or args.game is not None or _given_flags(args):
            raise UsageError(_("give either a transcript FILE or --seed/--game and rule options, not both"))
        t = _read_transcript(args.file)
        status, text, record_json = _verdict(t)
        if status == EXIT_INVALID:
            print(f"{args.file}: {text}", file=sys.stderr)
            return EXIT_INVALID
        record, state = t.record, t.final
    else:
        if args.seed is None:
            raise UsageError(_("which deal? give --seed N or a transcript FILE"))
        game = game_named(args.game) if args.game else DEFAULT_GAME
        rules, given = _rules(game, args)

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
    # The result word ("lost: ", "unknown: ") stays the one a pipe gets; what follows is translated.
    nodes = solution.nodes
    if solution.result == "lost":
        if args.file is not None:
            # TRANSLATORS: {file} is a transcript's file name
            proven = ngettext("the position at the end of {file} cannot be won (proven; {n:,} position searched)",
                              "the position at the end of {file} cannot be won (proven; {n:,} positions searched)",
                              nodes).format(file=args.file, n=nodes)
        else:
            proven = ngettext("deal {deal} cannot be won (proven; {n:,} position searched)",
                              "deal {deal} cannot be won (proven; {n:,} positions searched)",
                              nodes).format(deal=deal, n=nodes)
        return "lost: " + proven
    if args.nodes is not None and solution.nodes >= args.nodes:
        return "unknown: " + ngettext(
            "no win found and no loss proven in {n:,} position; a larger --nodes searches further",
            "no win found and no loss proven in {n:,} positions; a larger --nodes searches further",
            nodes).format(n=nodes)
    return "unknown: " + ngettext(
        # TRANSLATORS: {seconds:.0f} s is a time in seconds
        "no win found and no loss proven in {seconds:.0f} s ({n:,} position); a larger --budget searches longer",
        "no win found and no loss proven in {seconds:.0f} s ({n:,} positions); a larger --budget searches longer",
        nodes).format(seconds=solution.seconds, n=nodes)



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
        # TRANSLATORS: {game} is a game's title: "Calculation"
        raise NotAvailable(_("{game} has no solver yet: no review").format(game=_(record.game.title)))
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
            # TRANSLATORS: {given} is an option or argument of the command line: "--out", "N|A-B"
            raise UsageError(_("--from reports on the files as they are: {given} goes with a run, "
                               "not with --from").format(given=given[0]))
    elif not args.deals:
        raise UsageError(_("which deals? give N or A-B (or --from FILE to report on a results file); "
                           "your own games' figures are 'musical history --stats'"))
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
    rules, given = _rules(game, args)
    player = args.player or "solver"
    if args.workers is not None and args.workers < 1:
        raise UsageError(_("--workers must be 1 or more"))
    if args.workers is not None and args.scheduler:
        raise UsageError(_("--workers is for this machine; with --scheduler the cluster's workers run the deals"))
    if player not in game.players:
        title = _(game.title)
        if player == "blind" and "solver" in game.players:
            # TRANSLATORS: {game} is a game's title: "Crazy Quilt"
            raise UsageError(_("--player blind is for games whose stock stays hidden; {game}'s "
                               "is seen after the first pass").format(game=title))
        if player == "solver":
            raise NotAvailable(_("{game} has no solver yet").format(game=title))
        raise NotAvailable(_("{game} has no blind player yet").format(game=title))
    if args.nodes is not None and player == "blind":
        raise UsageError(_("--nodes limits the solver's search; the blind player's effort is fixed "
                           "(its rollouts), the same on every machine"))
    deals = list(dict.fromkeys(d for group in args.deals for d in group))  # a deal named twice runs once
    results = None
    todo = deals
    if args.out is not None:
        results = ResultsFile(args.out, run_key(game, rules, player))
        if results.torn:
            _complain(_("{file}: its last line was cut short (a run stopped while writing it); "
                        "that deal is done again").format(file=args.out))
        todo = [d for d in deals if d.text not in results.results]
        if len(todo) < len(deals):
            held = len(deals) - len(todo)
            # TRANSLATORS: {deals} is a count of deals: "3 deals"
            _complain(_("{file} already holds {n} of these deals; {deals} to go").format(
                file=args.out, n=held, deals=plural(len(todo), "deal")))
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

    deals = plural(len(todo), "deal")
    # TRANSLATORS: {deals} is a count of deals: "40 deals"
    title = _("playing {deals}").format(deals=deals) if player == "blind" else _("solving {deals}").format(deals=deals)
    with ProgressBar(title=title, output=create_output(stdout=sys.stderr)) as bar:
        # TRANSLATORS: the label of the progress bar of 'musical stats', before its count of deals done
        counter: ProgressBarCounter[object] = bar(label=_("deals"), total=len(todo))


        def tick(result) -> None:
            if on_result is not None:
                on_result(result)
            counter.item_completed()

        return run(on_result=tick)


def _decimal(value: float, places: int) -> str:
    """A number in a sentence, with the decimal mark of the language in use ("0.5"; "0,5" in
    Russian). Tables keep the point, for their columns."""
    # TRANSLATORS: the decimal mark of a number in a sentence ("0.5"): "," in Russian
    return f"{value:.{places}f}".replace(".", pgettext("decimal mark", "."))


def _print_stats(args: argparse.Namespace, report) -> None:
    if args.json:
        print(json.dumps(report.to_json()))
        return
    game = game_named(report.game)
    n = max(report.deals, 1)
    rd = ", ".join(f"{k} {v}" for k, v in report.options.items())

    def pct(k: int) -> str:
        return f"{k:>6} ({100 * k / n:5.1f}%)"

    who = "" if report.player == "solver" else _(", played by the blind player")
    # TRANSLATORS: {files} are the results files' names: "a.jsonl and b.jsonl"
    source = _(" (from {files})").format(files=joined(args.from_files)) if args.from_files else ""
    # the name players know the variant by, then its options in full ("Persian Rug (redeals 1, ...)")
    rules = game.rules_from_options(report.options)
    lines = [f"{game.variant_title(rules)} ({rd}){who}, {plural(report.deals, 'deal')}{source}"
             + (_(" (interrupted: the deals finished so far)") if report.interrupted else "")]
    # the labels in a column as wide as the longest of them
    label = {"won": pgettext("stats", "won"), "lost": pgettext("stats", "lost"),
             "unknown": pgettext("stats", "unknown"), "win rate": pgettext("stats", "win rate"),
             "greedy": pgettext("stats", "greedy")}
    column = max(len(word) for word in label.values()) + 1
    row = {key: "  " + word.ljust(column) for key, word in label.items()}
    lines += [row["won"] + pct(report.won), row["lost"] + pct(report.lost), row["unknown"] + pct(report.unknown)]
    low, high = report.interval
    # TRANSLATORS: {low} and {high} are percentages ("12.5"); "unknown" are the deals the solver left undecided
    # xgettext: no-python-format
    lines.append(row["win rate"] + _("95% interval {low}% to {high}% (Wilson; unknown deals counted as lost, "
                                     "then as won)").format(low=_decimal(100 * low, 1), high=_decimal(100 * high, 1)))
    if game.has_greedy:
        # TRANSLATORS: {strategy} is a game's greedy strategy: "always playing to the lowest foundation
        # that takes a card"
        won_by = _("won by {strategy}").format(strategy=_(game.greedy_text))
        lines.append(row["greedy"] + pct(report.greedy_won) + "  " + won_by)
    times = {"median": _decimal(report.median, 3), "p90": _decimal(report.p90, 3), "max": _decimal(report.max, 3),
             "total": _decimal(report.seconds_total, 1)}
    if args.from_files:
        # TRANSLATORS: {total} is the deals' seconds added up, from the results files
        lines.append(_("  seconds per deal: median {median}, 90th percentile {p90}, max {max}; "
                       "{total} summed").format(**times))
    else:
        # TRANSLATORS: {total} is the run's seconds, from start to end
        lines.append(_("  seconds per deal: median {median}, 90th percentile {p90}, max {max}; "
                       "{total} in all").format(**times))
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
        raise UsageError(_("give --stats or --export, not both"))
    if args.count is not None:
        if args.limit is not None and args.limit != args.count:
            raise UsageError(_("give N or --limit N, not both ({count} and --limit {limit})").format(
                count=args.count, limit=args.limit))
        args.limit = args.count
    try:
        if not default_path().exists():
            print(_("no game recorded yet"), file=sys.stderr if args.json else sys.stdout)
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
                # TRANSLATORS: {reason} is the system's, in English: "Permission denied"
                raise FileError(_("cannot export to {dir}: {reason}").format(
                    dir=args.export, reason=e.strerror or e)) from None
            # TRANSLATORS: {games} is a count of games: "3 games"
            print(_("exported {games} to {dir}").format(games=plural(len(paths), "game"), dir=args.export))
            return 0
    except StoreError as e:
        raise FileError(str(e)) from None
    finally:
        store.close()
    if not rows:
        # TRANSLATORS: {game} is a game's name as --game takes it: "calculation"
        print(_("no game recorded yet") if args.game is None else _("no {game} game recorded yet").format(
            game=args.game), file=sys.stderr if args.json else sys.stdout)
        return 0
    width = _out_width()
    if args.stats:
        lines = figures_json(rows) if args.json else figures_table(rows, width) + [""] + wrap(STATS_LEGEND, width)
    else:
        lines = history_json(rows) if args.json else history_table(rows, width)
    for text in lines:
        print(text)
    if not args.json and not args.stats and total > len(rows):
        older = total - len(rows)
        # TRANSLATORS: {n} games older than the ones listed; {total} is the count of every recorded game
        print(ngettext("({n} older: --limit {total} lists them all)", "({n} older: --limit {total} lists them all)",
                       older).format(n=older, total=total))
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
        # A subcommand's mistake shows that subcommand's usage, as argparse's own errors do, in
        # argparse's words.
        own = parser.subcommand(args.command) if args.command else parser
        own.print_usage(sys.stderr)
        sys.stderr.write(_("%(prog)s: error: %(message)s\n") % {"prog": own.prog, "message": e})
        return EXIT_USAGE
    except (FileError, NotAvailable) as e:
        _complain(str(e))
        return EXIT_USAGE
    except KeyboardInterrupt:
        _complain(_("interrupted"))
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (e.g. `musical deal 1-1000 | head`): not an error worth a word.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as e:  # a user never sees a traceback; MUSICAL_DEBUG=1 shows it
        if os.environ.get("MUSICAL_DEBUG"):
            raise
        # TRANSLATORS: {kind} is the Python exception's name ("ValueError"), {error} its message, in English
        _complain(_("internal error: {kind}: {error} (run with MUSICAL_DEBUG=1 for details "
                    "and please report it)").format(kind=type(e).__name__, error=e))
        return EXIT_SOFTWARE


def _complain(text: str) -> None:
    """A line on standard error, after the program's name: "musical: cannot read x.txt: ...";
    on a terminal wrapped between words at its width, the rest indented (a pipe gets it whole,
    one line a problem, for the programs that read it)."""
    line = f"{PROG}: {text}"
    if sys.stderr.isatty():
        width = shutil.get_terminal_size((80, 24)).columns - 1
        # (a word longer than the line, a long path, is broken: it could not fit whole)
        line = textwrap.fill(line, width=width, subsequent_indent="  ", break_on_hyphens=False)
    print(line, file=sys.stderr)
