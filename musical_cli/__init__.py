"""musical: Musical (Betsy Ross) patience and its family, in the terminal."""

__version__ = "0.5.0"
