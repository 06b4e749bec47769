"""The shape every mechanism's result shares: what was released, what it cost, how to show it.

A result class is a frozen dataclass that inherits :class:`Release` and provides

* ``mechanism`` — the name of the function that produced it;
* ``privacy_loss`` — the :class:`~mechanisms.accounting.PrivacyLoss` of the release;
* ``secure`` — ``False`` when the noise was drawn with floating-point samplers (open to the
  attacks of Mironov 2012), which also warn :class:`~dpcount.errors.UnsafeNoiseWarning`;
* ``scale`` — the noise scale (Laplace b, Gaussian σ, or 2/ε for an exponential mechanism);
* ``_rows()`` — the (name, value) pairs of its table, and optionally ``_sentences()``.

From these :class:`Release` derives ``is_private`` (false whenever the result carries data that
is not private: the fields named in ``NON_PRIVATE_FIELDS`` are set, or the noise came from a
caller's seed, :attr:`Release.seeded`), ``__str__``, ``_repr_html_``, ``to_dict`` and
``to_json`` (which :meth:`Release.from_json` reads back).

Examples
--------
>>> import dataclasses
>>> from mechanisms.accounting import PrivacyLoss
>>> @dataclasses.dataclass(frozen=True)
... class Toy(Release):
...     estimate: float
...     scale: float
...     privacy_loss: PrivacyLoss
...     mechanism = "toy"
...     secure = True
...     def _rows(self):
...         return [("estimate", f"{self.estimate:g}")]
>>> t = Toy(3.0, 2.0, PrivacyLoss(1.0, description="a toy"))
>>> t.is_private, Toy.from_json(t.to_json()) == t
(True, True)
>>> print(t)
estimate: 3
privacy loss: ε = 1, δ = 0 (a toy)
>>> s = seeded_copy(t)
>>> s.seeded, s.is_private, str(s).splitlines()[-1]
(True, False, 'SEEDED, NOT PRIVATE: the noise follows a seed the caller chose (research only).')
"""

from __future__ import annotations

import copy
import dataclasses
import html
import json
import math
import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from decimal import ROUND_DOWN, Decimal
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, Union

import numpy as np

from mechanisms.accounting import PrivacyLoss

__all__ = ["Release", "confidence_text", "count_lower_bound", "html_table", "seeded_copy"]

R = TypeVar("R", bound="Release")


@typing.runtime_checkable
class _HasToDict(typing.Protocol):
    def to_dict(self) -> dict[str, Any]: ...


def html_table(rows: list[tuple[str, str]], caption: str = "") -> str:
    """An HTML table of (name, value) rows, every cell escaped; ``caption`` above it.

    Examples
    --------
    >>> print(html_table([("n", "<a>")], "x & y"))
    <p>x &amp; y</p><table><tr><th style='text-align:left'>n</th><td>&lt;a&gt;</td></tr></table>
    """
    body = "".join(
        f"<tr><th style='text-align:left'>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>"
        for k, v in rows
    )
    text = f"<p>{html.escape(caption)}</p>" if caption else ""
    return f"{text}<table>{body}</table>"


def html_grid(header: Sequence[str], rows: Iterable[Sequence[str]], note: str = "") -> str:
    """An HTML table with a header row, every cell escaped; ``note`` below it.

    Examples
    --------
    >>> print(html_grid(["a", "b"], [("1", "<2>")], "ε = 1"))
    <table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>&lt;2&gt;</td></tr></table><p>ε = 1</p>
    """
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(v)}</td>" for v in row) + "</tr>" for row in rows
    )
    text = f"<p>{html.escape(note)}</p>" if note else ""
    return f"<table><tr>{head}</tr>{body}</table>{text}"


def confidence_text(beta: float) -> str:
    """1 − β for "with probability ≥ …": a percentage rounded *down*, so the claim stays true,
    or ``1 − β`` itself when β is below 10⁻⁴ (where a percentage would round to 100%).

    Examples
    --------
    >>> confidence_text(0.05), confidence_text(0.001), confidence_text(1 / 30)
    ('95%', '99.9%', '96.66%')
    >>> confidence_text(4e-5), confidence_text(1e-300)
    ('1 − 4e-05', '1 − 1e-300')
    """
    if beta < 1e-4:
        return f"1 − {beta:g}"
    # The β the caller wrote (its shortest decimal), not the float's binary expansion.
    percent = (1 - Decimal(repr(float(beta)))) * 100
    return f"{percent.quantize(Decimal('0.01'), rounding=ROUND_DOWN).normalize():f}%"


def count_lower_bound(estimate: float) -> int:
    """A released lower bound ν̂ on a count, as a count: ⌈ν̂⌉, and 0 when ν̂ is negative.

    A count is an integer, so ν̂ ≤ count also gives ⌈ν̂⌉ ≤ count (floating-point noise too).

    Examples
    --------
    >>> count_lower_bound(41.2), count_lower_bound(-3), count_lower_bound(7)
    (42, 0, 7)
    """
    return max(0, math.ceil(estimate))


def loss_text(loss: PrivacyLoss) -> str:
    """``ε = 1, δ = 0 (description)`` — a loss in one line for people.

    Examples
    --------
    >>> loss_text(PrivacyLoss(0.5, 1e-6))
    'ε = 0.5, δ = 1e-06'
    """
    eps = "∞ (NOT PRIVATE)" if math.isinf(loss.epsilon) else f"{loss.epsilon:g}"
    nominal = ", nominal only (local sensitivity)" if not loss.worst_case else ""
    about = f" ({loss.description})" if loss.description else ""
    return f"ε = {eps}, δ = {loss.delta:g}{nominal}{about}"


class Release:
    """Mixin of every result: ``is_private``, ``__str__``, ``_repr_html_``, ``to_dict``/``to_json``.

    Subclasses are frozen dataclasses; see the module docstring for what they provide.
    """

    #: Fields that, when not ``None``, hold data that is not private (diagnostics, raw weights).
    NON_PRIVATE_FIELDS: ClassVar[tuple[str, ...]] = ()

    if TYPE_CHECKING:  # provided by every subclass as a field or a property

        @property
        def mechanism(self) -> str: ...
        @property
        def privacy_loss(self) -> PrivacyLoss: ...
        @property
        def secure(self) -> bool: ...
        @property
        def scale(self) -> float: ...

    @property
    def is_private(self) -> bool:
        """Whether everything this result holds is differentially private (worst case).

        False for non-private or nominal losses and whenever a non-private field (diagnostics,
        raw weights) is attached.
        """
        attached = any(getattr(self, name) is not None for name in self.NON_PRIVATE_FIELDS)
        return self.privacy_loss.is_private and not attached and not self.seeded

    @property
    def seeded(self) -> bool:
        """Whether the noise came from a seed the caller chose (:class:`~mechanisms.SeededSession`).

        Whoever knows the seed can recompute the noise and remove it, so such a result is
        never private, whatever its ``privacy_loss`` says.  Set only by :func:`seeded_copy`.
        """
        return bool(self.__dict__.get("_seeded", False))

    # ---- text ------------------------------------------------------------------------------

    def _rows(self) -> list[tuple[str, str]]:
        """(name, value) rows describing the release (the table and the default text)."""
        raise NotImplementedError  # pragma: no cover - every subclass overrides

    def _sentences(self) -> list[str]:
        """The release in words; by default its rows and its loss, one per line."""
        lines = [f"{k}: {v}" for k, v in self._rows()]
        lines.append(f"privacy loss: {loss_text(self.privacy_loss)}")
        return lines

    def _warnings(self) -> list[str]:
        """Sentences every display adds: non-private attachments, floating-point noise."""
        notes = []
        attached = [n for n in self.NON_PRIVATE_FIELDS if getattr(self, n) is not None]
        if attached:
            notes.append(f"NOT PRIVATE: also holds {', '.join(attached)} (for research only).")
        if not self.secure:
            notes.append("Floating-point noise: for experiments, not for release.")
        if self.seeded:
            notes.append(SEEDED_NOTE)
        return notes

    def __str__(self) -> str:
        return "\n".join([*self._sentences(), *self._warnings()])

    def _repr_html_(self) -> str:
        rows = [
            ("mechanism", self.mechanism),
            *self._rows(),
            ("privacy loss", loss_text(self.privacy_loss)),
        ]
        own_text = type(self)._sentences is not Release._sentences
        caption = [*self._sentences(), *self._warnings()] if own_text else self._warnings()
        return html_table(rows, caption=" ".join(caption))

    # ---- serialisation ---------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The result as plain JSON-able values: every field plus a summary.

        Arrays become lists (dates as ISO text), infinities the strings ``"inf"``/``"-inf"``,
        nested results and the loss dicts.  ``"result"`` names the class, and ``mechanism``,
        ``is_private`` and ``secure`` are always present.
        """
        out: dict[str, Any] = {
            "result": type(self).__name__,
            "mechanism": self.mechanism,
            "is_private": self.is_private,
            "secure": self.secure,
        }
        if self.seeded:
            out["seeded"] = True
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            out[f.name] = encode(getattr(self, f.name))
        return out

    def to_json(self, **kwargs: Any) -> str:
        """:meth:`to_dict` as JSON text (standard JSON: no NaN or Infinity literals).

        Keyword arguments go to :func:`json.dumps` (e.g. ``indent=2``).
        """
        kwargs.setdefault("ensure_ascii", False)
        return json.dumps(self.to_dict(), allow_nan=False, **kwargs)

    @classmethod
    def from_dict(cls: type[R], data: Mapping[str, Any]) -> R:
        """Rebuild a result from :meth:`to_dict` (keys that are not fields are ignored)."""
        hints = typing.get_type_hints(cls)
        kwargs = {
            f.name: decode(hints[f.name], data[f.name])
            for f in dataclasses.fields(cls)  # type: ignore[arg-type]
            if f.name in data
        }
        result = cls(**kwargs)
        return seeded_copy(result) if data.get("seeded") else result

    @classmethod
    def from_json(cls: type[R], text: str) -> R:
        """Rebuild a result from :meth:`to_json`."""
        return cls.from_dict(json.loads(text))


#: The sentence every display of a seeded result adds.
SEEDED_NOTE = "SEEDED, NOT PRIVATE: the noise follows a seed the caller chose (research only)."


def seeded_copy(result: R) -> R:
    """A copy of ``result`` marked :attr:`~Release.seeded` (not private, and says so).

    The mark is not a dataclass field: results compare equal with and without it.
    """
    out = copy.copy(result)
    object.__setattr__(out, "_seeded", True)  # frozen dataclass: set past its __setattr__
    return out


# --------------------------------------------------------------------------------------------
# Values to JSON and back
# --------------------------------------------------------------------------------------------


def encode(value: Any) -> Any:
    """A field value as JSON-able data (see :meth:`Release.to_dict`).

    Examples
    --------
    >>> encode(np.array([1, 2])), encode(float("inf")), encode(PrivacyLoss(1.0))["epsilon"]
    ([1, 2], 'inf', 1.0)
    """
    if isinstance(value, PrivacyLoss):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if isinstance(value, Release | _HasToDict):
            return value.to_dict()
        return {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "M":
            return [str(s) for s in np.datetime_as_string(value)]
        return [encode(x) for x in value.tolist()]
    if isinstance(value, np.generic):
        return encode(value.item())
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, tuple | list):
        return [encode(x) for x in value]
    if isinstance(value, Mapping):
        return {str(k): encode(v) for k, v in value.items()}
    return value


def decode(hint: Any, value: Any) -> Any:
    """The inverse of :func:`encode` for a field annotated ``hint``."""
    if value is None:
        return None
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        arms = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(arms) == 1:
            return decode(arms[0], value)
        if all(a in (int, float) for a in arms):
            return float(value) if isinstance(value, str) else value
        return value
    if origin is tuple:
        args = typing.get_args(hint)
        item = args[0] if len(args) == 2 and args[1] is Ellipsis else Any
        return tuple(decode(item, x) for x in value)
    if origin is typing.Literal or hint is Any or hint is str or hint is bool:
        return value
    if origin is not None and issubclass(origin, Mapping):
        return dict(value)
    if hint is float:
        return float(value)
    if hint is int:
        return int(value)
    if hint is np.ndarray:
        return _readonly(np.asarray(value))
    if hint is PrivacyLoss:
        return PrivacyLoss.from_dict(value)
    if isinstance(hint, type) and hasattr(hint, "from_dict"):
        return hint.from_dict(value)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        inner = typing.get_type_hints(hint)
        # Keys that are not fields are ignored, as in Release.from_dict (a front end may add
        # derived values, e.g. the command line's per-row lower_bound).
        return hint(**{k: decode(inner[k], v) for k, v in value.items() if k in inner})
    return value


def _readonly(arr: np.ndarray) -> np.ndarray:
    arr.flags.writeable = False
    return arr
