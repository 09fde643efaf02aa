"""``Frozen``: small immutable value types for the one-shot CLI's path, without ``dataclasses``.

Why not ``@dataclass(frozen=True)`` there: importing ``dataclasses`` imports ``inspect`` (and ``ast``,
``dis``, ``tokenize``), and every class is made by compiling generated code: together ~10 ms of a
``dsh-memory search`` whose whole budget is ``rg``'s ~50 ms (issue 24). The types that path builds
(search hits and results, the parsed query, the CLI's result) use this; everything else keeps
dataclasses. The contract is the frozen dataclass's: the fields are the class's ``__slots__`` in
``__init__`` order (hence ``noqa: RUF023``, "sort them", where they are listed); equality (same
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


@dataclass_transform(frozen_default=True, eq_default=True)  # (mypy: fields read-only, as a frozen dataclass's)
class Frozen:
    __slots__: tuple[str, ...] = ()
    _uncompared: ClassVar[frozenset[str]] = frozenset()

    def _init(self, values: dict[str, Any]) -> None:
        """Sets every field from ``values`` (an ``__init__``'s ``locals()``: its parameters are the fields)."""
        set_field = _SET_FIELD  # (a local: Doc is made ~100,000 times by a cold build at 100k)
        for name in self.__slots__:
            set_field(self, name, values[name])

    def _key(self) -> tuple[Any, ...]:
        return tuple(getattr(self, n) for n in self.__slots__ if n not in self._uncompared)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Frozen)
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__)
        return f"{self.__class__.__qualname__}({fields})"

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r} of {self.__class__.__name__}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r} of {self.__class__.__name__}")

    def __reduce__(self) -> tuple[type[Self], tuple[Any, ...]]:  # (copy and pickle: through __init__)
        return self.__class__, tuple(getattr(self, n) for n in self.__slots__)

    def as_dict(self) -> dict[str, Any]:
        return {n: getattr(self, n) for n in self.__slots__}

    def replace(self, **changes: Any) -> Self:
        """A copy with ``changes`` (field name -> value) made; an unknown name is a TypeError."""
        return self.__class__(**{**self.as_dict(), **changes})
