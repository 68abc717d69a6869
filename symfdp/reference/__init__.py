"""Slow high-precision (mpmath) references, for tests and experiments only.

:mod:`~symfdp.reference.plrv`: PLRV cumulants, CGF and its derivatives at 30
digits for every registered mechanism; :mod:`~symfdp.reference.profile`: the
hockey-stick divergence delta(eps) by mpmath quadrature.
"""
