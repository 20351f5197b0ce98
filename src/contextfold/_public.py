"""Show public names under their public path (``contextfold.Context``, not ``contextfold._context.Context``).

A public package calls `publish` on its ``__all__`` after its imports, as httpx does. Classes and functions defined
in a private module get the package as ``__module__``, so reprs, tracebacks and pickles name the path users import
from, and a later move between private modules is invisible to them. Names already shown under a public path (a
sub-package that published first) keep it.

``typing.get_type_hints`` resolves a class's string annotations in the namespace of its ``__module__``; the
package's namespace lacks the private names they use, so each class's own annotations are resolved first, in its
defining module, and stored resolved, in ``__annotations__`` and in each dataclass field's ``type`` (pydantic reads
that), so type-hint, pydantic and dataclass tools keep working. Pickle finds ``package.name``, which resolves.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Iterable, Mapping
from types import FunctionType

__all__ = ["publish"]


def _private(module: str) -> bool:
    return module.startswith("contextfold.") and any(part.startswith("_") for part in module.split(".")[1:])


def publish(package: str, namespace: Mapping[str, object], names: Iterable[str]) -> None:
    """Rewrite ``__module__`` of the classes and functions in ``names`` that a private module defines."""
    for name in names:
        obj = namespace[name]
        if not isinstance(obj, type | FunctionType) or not _private(obj.__module__) or obj.__name__ != name:
            continue
        if isinstance(obj, type):
            own = inspect.get_annotations(obj)
            if own and any(isinstance(v, str) for v in own.values()):
                try:  # in the defining module's namespace (bases: in theirs), while __module__ still names it
                    hints = typing.get_type_hints(obj, include_extras=True)
                except NameError:  # a name only imported for type checking: leave the strings
                    hints = {}
                obj.__annotations__ = {key: hints.get(key, value) for key, value in own.items()}
                for key, spec in getattr(obj, "__dataclass_fields__", {}).items():  # pydantic reads `Field.type`
                    if isinstance(spec.type, str) and key in hints:
                        spec.type = hints[key]
        obj.__module__ = package
