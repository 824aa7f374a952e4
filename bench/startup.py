"""Start-up time of the interactive shell: from starting ``musical --seed 1`` in a pseudo-terminal
to the first ``musical>`` prompt on the screen, beside ``python -c "import prompt_toolkit.shortcuts"``
and ``python -c pass`` on the same machine (medians of several runs, in milliseconds).

    python bench/startup.py [RUNS]

Needs pexpect (the project's test extra).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time

import pexpect

PROMPT = "musical>"
CPR_REQUEST = "\x1b[6n"


def shell_to_prompt(env: dict[str, str]) -> float:
    start = time.perf_counter()
    child = pexpect.spawn(sys.executable, ["-m", "musical_cli", "--seed", "1"], env=env,
                          dimensions=(30, 100), encoding="utf-8", timeout=30)
    # pexpect sleeps 50 ms before every send by default: the cursor-position request comes just
    # before the prompt, so that sleep was counted as start-up time. A terminal answers at once.
    child.delaybeforesend = None
    try:
        while child.expect_exact([PROMPT, CPR_REQUEST]) == 1:
            child.send("\x1b[10;1R")  # answer the cursor-position request, as a terminal does
        elapsed = time.perf_counter() - start
        child.sendline("quit")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    return elapsed


def command(*args: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, *args], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def median_ms(fn, runs: int) -> float:
    fn()  # warm the file-system cache and the bytecode caches
    return 1000 * statistics.median(fn() for _ in range(runs))


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    with tempfile.TemporaryDirectory() as state:
        # the record goes there too: a benchmark must not write to the player's own
        env = {**os.environ, "TERM": "xterm", "XDG_STATE_HOME": state, "XDG_DATA_HOME": state}
        env.pop("NO_COLOR", None)
        # The warm-up run writes musical's bytecode, as an install does (prompt_toolkit's is
        # written when pip installs it); with PYTHONDONTWRITEBYTECODE set, every run compiled
        # musical's sources and none of prompt_toolkit's.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        shell = median_ms(lambda: shell_to_prompt(env), runs)
    toolkit = median_ms(lambda: command("-c", "import prompt_toolkit.shortcuts"), runs)
    bare = median_ms(lambda: command("-c", "pass"), runs)
    print(f"musical --seed 1, start to first prompt (pty):   {shell:7.1f} ms")
    print(f"python -c 'import prompt_toolkit.shortcuts':     {toolkit:7.1f} ms")
    print(f"python -c pass:                                  {bare:7.1f} ms")
    print(f"(medians of {runs} runs; python {sys.version.split()[0]})")


if __name__ == "__main__":
    main()
