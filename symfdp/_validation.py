"""Input validation shared by every public entry point.

Every check raises ``TypeError`` for a value of the wrong kind and ``ValueError``
for a value out of range, naming the parameter, the allowed range and the value
found, e.g. ``ValueError: p must lie in (0, 1]. Found 1.5.``
"""

from __future__ import annotations

import math
import numbers
import reprlib
from typing import Any, SupportsInt, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from symfdp._limits import MAX_COMPOSITIONS as MAX_COMPOSITIONS
from symfdp._limits import MAX_INT as MAX_INT


def _short(value: Any) -> str:
    """A repr of ``value`` short enough for an error message."""
    return reprlib.repr(value)


def _not_real(name: str, values: Any) -> TypeError:
    return TypeError(
        f"{name} must be a real number or an array of them. Found {_short(values)}."
    )


def _interval(lo: float, hi: float, lo_open: bool, hi_open: bool) -> str:
    left = "(" if lo_open else "["
    right = ")" if hi_open else "]"
    lo_s = "-inf" if lo == -math.inf else f"{lo:g}"
    hi_s = "inf" if hi == math.inf else f"{hi:g}"
    return f"{left}{lo_s}, {hi_s}{right}"


def check_real(
    name: str,
    value: Any,
    lo: float = -math.inf,
    hi: float = math.inf,
    *,
    lo_open: bool = False,
    hi_open: bool = False,
    allow_inf: bool = False,
) -> float:
    """Return ``value`` as a float after checking its type and range.

    Args:
        name: Parameter name used in the error message.
        value: The value to check; a real number (bool is rejected).
        lo, hi: Bounds of the allowed interval.
        lo_open, hi_open: Whether the bounds are excluded.
        allow_inf: Accept ``+-inf`` (still subject to the bounds).

    Raises:
        TypeError: ``value`` is not a real number.
        ValueError: ``value`` is NaN, infinite (unless allowed) or out of range.
    """
    if type(value) is not float:  # a float needs none of these checks
        if isinstance(value, np.ndarray) and value.ndim == 0:
            value = value.item()
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"{name} must be a real number. Found {_short(value)}.")
        try:
            value = float(value)
        except OverflowError:  # an int beyond float64 (10**400)
            raise ValueError(
                f"{name} must be a finite number in "
                f"{_interval(lo, hi, lo_open, hi_open)}. Found {_short(value)}, "
                "beyond the float64 range."
            ) from None
    x = value
    if math.isnan(x) or (math.isinf(x) and not allow_inf):
        raise ValueError(
            f"{name} must be a finite number in {_interval(lo, hi, lo_open, hi_open)}. "
            f"Found {x}."
        )
    below = x <= lo if lo_open else x < lo
    above = x >= hi if hi_open else x > hi
    if below or above:
        raise ValueError(
            f"{name} must lie in {_interval(lo, hi, lo_open, hi_open)}. Found {x:g}."
        )
    return x


def check_int(name: str, value: Any, lo: int = 1, hi: float = MAX_INT) -> int:
    """Return ``value`` as an int after checking it is an integer in ``[lo, hi]``
    (exact-integer floats such as ``1e4`` accepted)."""
    if type(value) is int and lo <= value <= hi:
        return value
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an integer. Found {value!r}.")
    if isinstance(value, numbers.Integral):
        k = int(value)
    elif isinstance(value, numbers.Real) and float(value).is_integer():
        k = int(cast(SupportsInt, value))
    else:
        raise TypeError(f"{name} must be an integer. Found {_short(value)}.")
    if k < lo or k > hi:
        hi_s = "inf" if hi == math.inf else f"{int(hi)}"
        found = (
            f"{k}"
            if abs(k) < 10**30
            else f"{float(k):.4g}"
            if abs(k) < 1e308
            else _short(k)
        )
        raise ValueError(f"{name} must be an integer in [{lo}, {hi_s}]. Found {found}.")
    return k


def check_order(order: Any, max_order: int = 64) -> int:
    """Validate an expansion order J (number of n^{-1/2} correction terms)."""
    if isinstance(order, bool):
        raise ValueError(f"order must be a non-negative integer. Found {order!r}.")
    if not isinstance(order, numbers.Integral):
        if isinstance(order, numbers.Real) and float(order).is_integer():
            order = int(cast(SupportsInt, order))
        else:
            raise ValueError(f"order must be a non-negative integer. Found {order!r}.")
    order = int(order)
    if order < 0 or order > max_order:
        raise ValueError(
            f"order must be a non-negative integer <= {max_order}. Found {order}."
        )
    return order


def as_real_array(name: str, values: ArrayLike) -> NDArray[np.float64]:
    """Return ``values`` as a float64 array after checking its type only.

    NaN and infinite entries pass; see :func:`check_array` for range checks.

    Raises:
        TypeError: the input is not real numbers (strings, bools, None, complex,
            ragged nested lists, other objects).
    """
    try:
        raw = values if isinstance(values, np.ndarray) else np.asarray(values)
    except (TypeError, ValueError) as exc:  # e.g. ragged nested lists
        raise _not_real(name, values) from exc
    if raw.dtype.kind in "bcSUV" or (
        raw.dtype.kind == "O"
        and any(
            v is None or isinstance(v, (str, bytes, bool, complex)) for v in raw.flat
        )
    ):
        # NumPy would read "3", None, True and complex values as real numbers.
        raise _not_real(name, values)
    try:
        arr = np.asarray(raw, dtype=np.float64)
    except OverflowError:  # an int beyond float64 (10**400)
        raise ValueError(
            f"{name} must be finite; found a number beyond the float64 range "
            f"in {_short(values)}."
        ) from None
    except (TypeError, ValueError) as exc:
        raise _not_real(name, values) from exc
    return arr


def check_array(
    name: str,
    values: ArrayLike,
    lo: float = -math.inf,
    hi: float = math.inf,
    *,
    lo_open: bool = False,
    hi_open: bool = False,
    allow_inf: bool = False,
) -> NDArray[np.float64]:
    """Return ``values`` as a float64 array after checking every entry's range.

    Raises:
        TypeError: the input is not numeric.
        ValueError: an entry is NaN, infinite (unless allowed) or out of range.
    """
    if type(values) is float:  # one Python float: its own extremes
        arr = np.array(values)
        least = most = values
    else:
        arr = as_real_array(name, values)
        if arr.size == 0:
            return arr
        # Two reductions decide the common case (the extremes propagate NaN).
        least, most = float(arr.min()), float(arr.max())
    if math.isnan(least):
        raise ValueError(f"{name} must not contain NaN.")
    if not allow_inf and (math.isinf(least) or math.isinf(most)):
        raise ValueError(
            f"{name} must be finite and lie in {_interval(lo, hi, lo_open, hi_open)}."
        )
    low_ok = least > lo if lo_open else least >= lo
    high_ok = most < hi if hi_open else most <= hi
    if low_ok and high_ok:
        return arr
    bad = (arr <= lo) if lo_open else (arr < lo)
    bad |= (arr >= hi) if hi_open else (arr > hi)
    if bad.any():
        first = arr[bad].flat[0]
        raise ValueError(
            f"{name} must lie in {_interval(lo, hi, lo_open, hi_open)}. "
            f"Found {first:g}."
        )
    return arr


def check_bool(name: str, value: Any, *, allow_none: bool = False) -> Any:
    """Return ``value`` as a bool (or None when allowed) after checking its type
    (only ``True``/``False`` and NumPy bools)."""
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    allowed = "True, False or None" if allow_none else "True or False"
    raise TypeError(f"{name} must be {allowed}. Found {_short(value)}.")


def check_instance(name: str, value: Any, cls: type) -> Any:
    """Return ``value`` after checking that it is an instance of ``cls``.

    Raises:
        TypeError: naming the parameter and the type found (and saying so when
            the class itself was passed instead of an instance).
    """
    if isinstance(value, cls):
        return value
    if isinstance(value, type) and issubclass(value, cls):
        raise TypeError(
            f"{name} must be an instance of {cls.__name__}, not the class itself. "
            f"Found {value.__name__}; pass {value.__name__}()."
        )
    raise TypeError(
        f"{name} must be an instance of {cls.__name__}. Found {type(value).__name__}."
    )


def check_callable(name: str, value: Any) -> Any:
    """Return ``value`` after checking that it can be called."""
    if not callable(value):
        raise TypeError(f"{name} must be callable. Found {_short(value)}.")
    return value


def check_choice(name: str, value: Any, choices: tuple[str, ...]) -> str:
    """Check that ``value`` is one of ``choices`` (strings: ``value`` must be a
    ``str``; an array would be compared elementwise)."""
    if not isinstance(value, str) and all(isinstance(c, str) for c in choices):
        allowed = ", ".join(repr(c) for c in choices)
        raise TypeError(
            f"{name} must be a string, one of {allowed}. Found {_short(value)}."
        )
    if value not in choices:
        allowed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {allowed}. Found {value!r}.")
    return str(value)


def scalar_or_array(out: ArrayLike) -> NDArray[np.float64]:
    """Return a Python float for 0-d results and the array otherwise (SciPy style),
    typed as the array (STYLE.md)."""
    arr = np.asarray(out, dtype=np.float64)
    return cast(_FloatArray, float(arr)) if arr.ndim == 0 else arr


#: The type of :func:`scalar_or_array`'s result, built once (a subscripted
#: generic built per call costs a few microseconds).
_FloatArray = NDArray[np.float64]
