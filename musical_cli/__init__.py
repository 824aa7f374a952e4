"""musical: Musical (Betsy Ross) patience and its family, in the terminal."""

__version__ = "0.5.0"
# The command's name, which is also the first game's: the shared modules name the program by this
# (its data directories, its --version), never by the literal, which would read as the game's.
PROGRAM = "musical"
