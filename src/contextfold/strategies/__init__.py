"""Alias of `contextfold.compaction`, kept so earlier imports keep working."""

from contextfold.compaction import *  # noqa: F403
from contextfold.compaction import __all__ as __all__
