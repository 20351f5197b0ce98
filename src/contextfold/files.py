r"""Files a user names: read them bounded, write them atomically, never clobber what is not a file.

What the ``contextfold`` command line reads and writes goes through here, and so can a tool you build around
contextfold (rules in ``docs/cli-files.md``):

- `read_text`: a plain UTF-8 text file, or ``-`` for standard input: regular files only (a FIFO, a device or a
  directory is refused without blocking), at most ``max_bytes`` (`DEFAULT_MAX_INPUT_BYTES` unless told), and
  bytes that are not UTF-8 named by offset, line and column. Transcript files: `contextfold.load_transcripts`,
  which reads the same way (gzip too).
- `OutputFile`: a file about to be written atomically, checked before any work is done.
- `escape_surrogates`: text with lone surrogates (valid in JSON, not in UTF-8) written as ``\uXXXX`` escapes, so
  printing or writing it cannot fail.

Every failure is a `contextfold.InputError` naming the file.
"""

from __future__ import annotations

from contextfold._formats._files import DEFAULT_MAX_INPUT_BYTES, OutputFile, escape_surrogates, read_text
from contextfold._public import publish as _publish

__all__ = ["DEFAULT_MAX_INPUT_BYTES", "OutputFile", "escape_surrogates", "read_text"]

_publish(__name__, globals(), __all__)
