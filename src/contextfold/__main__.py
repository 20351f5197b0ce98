"""``python -m contextfold`` runs the command line."""

from contextfold._cli import run

if __name__ == "__main__":
    run()
