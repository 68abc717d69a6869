"""Bridges to the tools users already work with.

* :func:`from_dp_event` (:mod:`symfdp.interop.dp_events`): dp-accounting ``DpEvent``
  descriptions in, a symfdp composition ``[(Mechanism, n), ...]`` out.
* :class:`symfdp.interop.dp_accounting.SymfdpAccountant`: a
  ``dp_accounting.PrivacyAccountant`` backed by any symfdp accountant (needs
  ``pip install symfdp[dp-accounting]``).
* :class:`symfdp.interop.opacus.OpacusAccountant`: an accountant for Opacus's
  ``PrivacyEngine`` backed by :class:`~symfdp.TrainingAccountant` (needs
  ``pip install symfdp[opacus]`` to be used with Opacus).

The submodules that need a third-party package import it themselves; importing
this package imports neither.
"""

from __future__ import annotations

from symfdp.interop.dp_events import (
    ADJACENCIES,
    NonPrivateEventError,
    UnsupportedEventError,
    from_dp_event,
)

__all__ = [
    "ADJACENCIES",
    "NonPrivateEventError",
    "UnsupportedEventError",
    "from_dp_event",
]
