"""Named tolerances for the test suite (STYLE.md). A loosened one says why."""

from typing import Final

#: Evaluator vs ``expr.evalf(30)``.
RTOL_EVAL: Final = 1e-12
#: Fast formulas vs slow mpmath references.
RTOL_REF: Final = 1e-8
#: Quadrature cumulants vs 30-digit mpmath references (issue: <= 1e-10 relative).
RTOL_CUMULANT: Final = 1e-10
#: Closed-form identities evaluated in float64.
ATOL_FLOAT: Final = 1e-12
#: mpmath working precision (decimal digits) for exact identities.
MP_DPS: Final = 30
