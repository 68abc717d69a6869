"""Figures of f-DP quantities: trade-off curves, privacy profiles, (mu*, gamma).

Every function draws on a Matplotlib ``Axes`` (a new, pyplot-free figure when
``ax`` is None) and returns it. Each accepts a
:class:`~symfdp.curve.PrivacyCurve`, a :class:`~symfdp.tradeoff.TradeOff` or (for
the trade-off pictures) any vectorised callable ``alpha -> beta``."""

from __future__ import annotations

import functools
import io
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from symfdp._validation import check_array, check_real
from symfdp.numeric.roots import invert_profile
from symfdp.tradeoff import TradeOff, mu_star_gamma

#: Default number of alpha points (a uniform grid plus a log-spaced one near 0).
_N_ALPHA = 401


def _new_axes(figsize: tuple[float, float] = (4.2, 4.0)) -> Any:
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, layout="constrained")
    return fig.add_subplot(axes_class=_notebook_axes_class())


@functools.cache
def _notebook_axes_class() -> type:
    """Matplotlib ``Axes`` that a notebook displays as its figure's PNG (the
    figures here are pyplot-free)."""
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    class NotebookAxes(Axes):
        def _repr_png_(self) -> bytes:
            buf = io.BytesIO()
            # The axes of _new_axes sit on a Figure, never on a SubFigure.
            cast(Figure, self.figure).savefig(buf, format="png", dpi=100)
            return buf.getvalue()

    return NotebookAxes


def default_alpha_grid(size: int = _N_ALPHA) -> np.ndarray:
    """Type I errors for plotting: uniform on [0, 1] plus log-spaced near 0."""
    return np.unique(
        np.concatenate([np.linspace(0.0, 1.0, size), np.geomspace(1e-6, 0.05, 60)])
    )


def _is_privacy_curve(curve: Any) -> bool:
    """Whether ``curve`` answers the queries of a
    :class:`~symfdp.curve.PrivacyCurve` (``tradeoff``, ``delta``, ``epsilon``
    and a ``method`` name)."""
    return all(hasattr(curve, a) for a in ("tradeoff", "delta", "epsilon", "method"))


def _describe(curve: Any) -> tuple[Callable[[np.ndarray], np.ndarray], Any, str]:
    """(beta(alpha), profile delta(eps) or None, default label) of a curve."""
    if isinstance(curve, TradeOff):
        return (
            lambda a: np.asarray(curve(a), dtype=np.float64),
            lambda e: np.asarray(curve.privacy_profile(e), dtype=np.float64),
            type(curve).__name__,
        )
    if _is_privacy_curve(curve):
        return (
            lambda a: np.asarray(curve.tradeoff(a), dtype=np.float64),
            lambda e: np.asarray(curve.delta(e), dtype=np.float64),
            str(curve.method),
        )
    if callable(curve):
        return (lambda a: np.asarray(curve(a), dtype=np.float64), None, "f")
    raise TypeError(
        "curve must be a PrivacyCurve, a TradeOff or a callable alpha -> beta. "
        f"Found {type(curve).__name__}."
    )


def _epsilon(
    curve: Any, profile: Callable[[np.ndarray], np.ndarray], d: float
) -> float:
    if not isinstance(curve, TradeOff) and _is_privacy_curve(curve):
        return float(curve.epsilon(d))
    return float(invert_profile(profile, np.array([d]))[0])


def _finish_unit_axes(ax: Any) -> None:
    ax.set(
        xlim=(0, 1),
        ylim=(0, 1),
        xlabel=r"type I error $\alpha$",
        ylabel=r"type II error $\beta$",
        aspect="equal",
    )


def plot_tradeoff(
    curve: Any,
    ax: Any = None,
    *,
    alpha: ArrayLike | None = None,
    label: str | None = None,
    delta: float | None = None,
    eps: float | None = None,
    bounds: bool = False,
    identity: bool | None = None,
    **kwargs: Any,
) -> Any:
    r"""Draw the trade-off curve :math:`\beta = f(\alpha)`, optionally with the
    supporting lines of an :math:`(\varepsilon, \delta)` guarantee (Dong et al.
    2019, Prop. 2.4 and Fig. 2; Zheng et al. 2020, Fig. 2.1).

    Args:
        curve: A PrivacyCurve (its symmetrised trade-off), a TradeOff, or a
            vectorised callable ``alpha -> beta``.
        ax: Axes to draw on; a new figure when None.
        alpha: Type I errors to evaluate (default: :func:`default_alpha_grid`).
        label: Legend label (default: the method or class name).
        delta: Also draw the supporting lines of the
            :math:`(\varepsilon(\delta), \delta)` guarantee of the curve.
        eps: Also draw the supporting lines at :math:`(\varepsilon,
            \delta(\varepsilon))` (give ``eps`` or ``delta``, not both).
        bounds: Shade the certified bracket (certified PrivacyCurves only).
        identity: Draw :math:`\mathrm{Id}(\alpha) = 1 - \alpha` (perfect
            privacy); default: only on a new Axes.
        **kwargs: Passed to ``ax.plot`` (``color``, ``ls``, ...).

    Returns:
        The Axes.
    """
    beta_fn, profile, default_label = _describe(curve)
    if delta is not None and eps is not None:
        raise ValueError("give delta or eps for the supporting lines, not both.")
    a = default_alpha_grid() if alpha is None else check_array("alpha", alpha, 0, 1)
    if identity is None:
        identity = ax is None
    if ax is None:
        ax = _new_axes()
    (line,) = ax.plot(a, beta_fn(a), label=label or default_label, **kwargs)
    if bounds:
        lo, hi = curve.tradeoff_bounds(a)
        ax.fill_between(a, lo, hi, color=line.get_color(), alpha=0.25, lw=0)
    if delta is not None or eps is not None:
        if profile is None:
            raise ValueError(
                "supporting lines need a privacy profile: pass a PrivacyCurve or a "
                "TradeOff, not a bare callable."
            )
        if delta is not None:
            d = check_real("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
            e = _epsilon(curve, profile, d)
        else:
            e = check_real("eps", eps, 0.0, math.inf)
            d = float(profile(np.asarray(e)))
        draw_supporting_lines(ax, e, d, color=line.get_color())
    if identity:
        ax.plot([0, 1], [1, 0], color="0.6", lw=0.8, ls=":", label="Id (no leakage)")
    _finish_unit_axes(ax)
    ax.legend(loc="upper right")
    return ax


def draw_supporting_lines(ax: Any, eps: float, delta: float, **kwargs: Any) -> Any:
    r"""Draw the two supporting lines of an :math:`(\varepsilon,\delta)`-DP guarantee,
    :math:`\beta = 1 - \delta - e^{\varepsilon}\alpha` and
    :math:`\beta = e^{-\varepsilon}(1 - \delta - \alpha)`, where
    :math:`\beta \ge 0` (their upper envelope is :math:`f_{\varepsilon,\delta}`,
    Dong et al. 2019, eq. (5)). Returns the Axes."""
    eps = check_real("eps", eps, 0.0, math.inf)
    delta = check_real("delta", delta, 0.0, 1.0)
    top = 1.0 - delta
    style = {"lw": 0.9, "ls": "--", **kwargs}
    ax.plot([0.0, top * math.exp(-eps)], [top, 0.0], **style)
    ax.plot(
        [0.0, top],
        [top * math.exp(-eps), 0.0],
        label=rf"$(\varepsilon, \delta) = ({eps:.3g}, {delta:.2g})$",
        **style,
    )
    return ax


def plot_privacy_profile(
    curve: Any,
    ax: Any = None,
    *,
    eps: ArrayLike | None = None,
    label: str | None = None,
    bounds: bool = False,
    **kwargs: Any,
) -> Any:
    r"""Draw the privacy profile :math:`\delta(\varepsilon)` with a log
    :math:`\delta` axis (points where :math:`\delta = 0` are left out).

    Args:
        curve: A PrivacyCurve or a TradeOff.
        ax: Axes to draw on; a new figure when None.
        eps: The :math:`\varepsilon \ge 0` grid (default: 300 points from 0 to
            1.2 times :math:`\varepsilon(10^{-10})`, or to 10 when that fails).
        label: Legend label (default: the method or class name).
        bounds: Shade the certified bracket (certified PrivacyCurves only).
        **kwargs: Passed to ``ax.plot``.

    Returns:
        The Axes.
    """
    _, profile, default_label = _describe(curve)
    if profile is None:
        raise TypeError(
            "plot_privacy_profile needs a PrivacyCurve or a TradeOff. "
            f"Found {type(curve).__name__}."
        )
    if eps is None:
        top = 10.0
        try:
            top = 1.2 * _epsilon(curve, profile, 1e-10) or top
        except (ValueError, FloatingPointError):
            pass
        e = np.linspace(0.0, top, 300)
    else:
        e = check_array("eps", eps, 0.0, math.inf)
    if ax is None:
        ax = _new_axes(figsize=(4.8, 3.4))
    d = profile(e)
    shown = np.ma.masked_less_equal(d, 0.0)
    (line,) = ax.plot(e, shown, label=label or default_label, **kwargs)
    if bounds:
        lo, hi = curve.delta_bounds(e)
        ax.fill_between(
            e,
            np.ma.masked_less_equal(lo, 0.0),
            np.ma.masked_less_equal(hi, 0.0),
            color=line.get_color(),
            alpha=0.25,
            lw=0,
        )
    ax.set_yscale("log")
    ax.set(xlabel=r"$\varepsilon$", ylabel=r"$\delta(\varepsilon)$")
    ax.legend(loc="lower left")
    return ax


def _mu_star_gamma(curve: Any) -> tuple[float, float]:
    if isinstance(curve, TradeOff):
        return mu_star_gamma(curve)
    found: tuple[float, float] = curve.mu_star_gamma()
    return found


def plot_mu_star_gamma(
    curves: Any,
    ax: Any = None,
    *,
    labels: Sequence[str] | None = None,
    shade: bool | None = None,
    alpha: ArrayLike | None = None,
) -> Any:
    r"""The (mu*, gamma) picture of Zheng et al. (2020), Fig. 4.1.

    For each curve :math:`f`: :math:`f`, the Gaussian trade-off :math:`G_{\mu^*}`
    (dashed) meeting it at the fixed point :math:`(\alpha^*, \alpha^*)`, with
    :math:`\mu^* = -2\Phi^{-1}(\alpha^*)`, and the area :math:`\gamma = \int_0^1 f`
    (shaded).

    Args:
        curves: One curve (PrivacyCurve, TradeOff or callable), a sequence of
            them, or a mapping ``label -> curve``.
        ax: Axes to draw on; a new figure when None.
        labels: Legend labels for a sequence (default: method or class names).
        shade: Shade the area under each curve (default: for a single curve).
        alpha: Type I errors to evaluate (default: :func:`default_alpha_grid`).

    Returns:
        The Axes; the legend gives each curve's :math:`(\mu^*, \gamma)`.
    """
    if isinstance(curves, Mapping):
        labels = [str(k) for k in curves]
        items = list(curves.values())
    elif isinstance(curves, Sequence) and not isinstance(curves, str):
        items = list(curves)
    else:
        items = [curves]
    if not items:
        raise ValueError("curves is empty.")
    if labels is not None and len(labels) != len(items):
        raise ValueError(
            f"labels must have one entry per curve ({len(items)}). Found {len(labels)}."
        )
    if shade is None:
        shade = len(items) == 1
    a = default_alpha_grid() if alpha is None else check_array("alpha", alpha, 0, 1)
    if ax is None:
        ax = _new_axes()
    ax.plot([0, 1], [0, 1], color="0.6", lw=0.8, ls=":", label="$y = x$")
    for k, curve in enumerate(items):
        beta_fn, _, default_label = _describe(curve)
        name = labels[k] if labels is not None else default_label
        mu, gamma = _mu_star_gamma(curve)
        color = f"C{k}"
        beta = beta_fn(a)
        ax.plot(
            a,
            beta,
            color=color,
            label=rf"{name}: $\mu^*={mu:.4g}$, $\gamma={gamma:.4g}$",
        )
        if shade:
            ax.fill_between(a, 0.0, beta, color=color, alpha=0.15, lw=0)
        if math.isfinite(mu):
            a_star = float(special.ndtr(-mu / 2.0))
            # G_mu(alpha) = Phi(-Phi^{-1}(alpha) - mu), Dong et al. (2019), eq. (6).
            g = special.ndtr(-special.ndtri(a) - mu)
            ax.plot(a, g, color=color, ls="--", lw=1.0, label="_nolegend_")
            ax.plot([a_star], [a_star], "o", color=color, ms=4)
    _finish_unit_axes(ax)
    ax.legend(
        loc="upper right",
        fontsize="small",
        title=r"dashed: $G_{\mu^*}$",
        title_fontsize="small",
    )
    return ax
