"""``Frozen``: small immutable value types for the one-shot CLI's path, without ``dataclasses``.

Why not ``@dataclass(frozen=True)`` there: importing ``dataclasses`` imports ``inspect`` (and ``ast``,
``dis``, ``tokenize``), and every class is made by compiling generated code: together ~10 ms of a
``dsh-memory search`` whose whole budget is ``rg``'s ~50 ms (issue 24). The types that path builds
(search hits and results, the parsed query, the CLI's result) use this; everything else keeps
dataclasses. The contract is the frozen dataclass's: a subclass is written like one (annotated
fields, defaults beside them), its fields become its ``__slots__`` in order; equality (same
class only), hash and repr over them, leaving the names in ``_uncompared`` out of equality and hash
(``field(compare=False)``); assigning raises :class:`FrozenInstanceError` (and is a type error:
``dataclass_transform``); ``replace(**changes)`` and ``as_dict()`` (shallow).
"""

from __future__ import annotations

TYPE_CHECKING = False  # (mypy reads this name as True; ``typing`` stays out of a one-shot CLI's start-up)
if TYPE_CHECKING:
    from typing import Any, ClassVar, Self, dataclass_transform
else:  # (at run time the decorator only marks the class for type checkers)

    def dataclass_transform(**_: object) -> Any:
        return lambda cls: cls


_SET_FIELD = object.__setattr__


class FrozenInstanceError(AttributeError):
    """A field of a :class:`Frozen` value was assigned or deleted."""


class _FrozenMeta(type):
    """Makes a subclass's annotated names (``ClassVar`` aside) its fields, in order: its ``__slots__``,
    with the values written beside them as defaults, as ``@dataclass(frozen=True, slots=True)`` does."""

    def __new__(mcs, name: str, bases: tuple[type, ...], ns: dict[str, Any]) -> _FrozenMeta:
        notes = ns.get("__annotations__", {})
        fields = tuple(n for n, note in notes.items() if not str(note).startswith(("ClassVar", "typing.ClassVar")))
        ns["_defaults"] = {n: ns.pop(n) for n in fields if n in ns}
        ns["_fields"], ns["__slots__"] = fields, fields
        return super().__new__(mcs, name, bases, ns)


@dataclass_transform(frozen_default=True, eq_default=True)  # (mypy: an __init__ from the fields; read-only)
class Frozen(metaclass=_FrozenMeta):
    _fields: ClassVar[tuple[str, ...]] = ()
    _defaults: ClassVar[dict[str, Any]] = {}
    _uncompared: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Fields by position or name, as a dataclass's ``__init__`` takes them."""
        fields = self._fields
        if len(args) > len(fields):
            raise TypeError(f"{self.__class__.__name__} takes {len(fields)} fields, {len(args)} given")
        values = dict(zip(fields, args, strict=False))  # (the rest by name or default)
        for name, value in kwargs.items():
            if name not in fields or name in values:
                raise TypeError(f"{self.__class__.__name__}: unexpected or repeated field {name!r}")
            values[name] = value
        set_field, defaults = _SET_FIELD, self._defaults  # (locals: ~100,000 Docs in a cold build at 100k)
        for name in fields:
            if name in values:
                set_field(self, name, values[name])
            elif name in defaults:
                set_field(self, name, defaults[name])
            else:
                raise TypeError(f"{self.__class__.__name__}: missing field {name!r}")

    def _key(self) -> tuple[Any, ...]:
        return tuple(getattr(self, n) for n in self._fields if n not in self._uncompared)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Frozen)
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._fields)
        return f"{self.__class__.__qualname__}({fields})"

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r} of {self.__class__.__name__}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r} of {self.__class__.__name__}")

    def __reduce__(self) -> tuple[type[Self], tuple[Any, ...]]:  # (copy and pickle: through __init__)
        return self.__class__, tuple(getattr(self, n) for n in self._fields)

    def as_dict(self) -> dict[str, Any]:
        return {n: getattr(self, n) for n in self._fields}

    def replace(self, **changes: Any) -> Self:
        """A copy with ``changes`` (field name -> value) made; an unknown name is a TypeError."""
        return self.__class__(**{**self.as_dict(), **changes})
