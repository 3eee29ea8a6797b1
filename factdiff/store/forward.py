"""``forward``: a facade method that is a repository's method, with its signature and types.

``MemoryStore`` keeps every public method; most are one line that hands the call to the
repository holding the logic::

    create_api_key = forward("_parts.api_keys", ApiKeys.create_api_key)

The holder is an attribute path (dotted, as ``operator.attrgetter`` reads it). Reading the
attribute on a store gives the repository's bound method (its signature and docstring);
reading it on the class gives the descriptor. An instance attribute of the same name (a
test's stand-in) wins, and a subclass may override it and call ``super()``.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, overload

S = TypeVar("S")
P = ParamSpec("P")
R = TypeVar("R")

__all__ = ["forward"]


class forward(Generic[S, P, R]):
    """The method ``method`` of the repository held at attribute path ``holder``."""

    def __init__(self, holder: str, method: Callable[Concatenate[S, P], R]) -> None:
        self._holder = attrgetter(holder)
        self._method = method
        self.__doc__ = method.__doc__

    @overload
    def __get__(self, obj: None, owner: type[Any]) -> forward[S, P, R]: ...

    @overload
    def __get__(self, obj: object, owner: type[Any]) -> Callable[P, R]: ...

    def __get__(self, obj: object | None, owner: type[Any]) -> forward[S, P, R] | Callable[P, R]:
        if obj is None:
            return self
        bound: Callable[P, R] = getattr(self._holder(obj), self._method.__name__)
        return bound
