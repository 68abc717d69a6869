"""The contract every registered mechanism satisfies (dp_accounting's pattern).

``MechanismContract`` holds the tests; one subclass per registered class sets
``mechanism`` and inherits them. Parameters are drawn by hypothesis from each
class's declared ``typical`` ranges (``PARAMS``). Checked, for every pair the
mechanism covers:

* the PLRV is a likelihood ratio: ``E_P[e^L] = 1`` and ``E_Q[e^{-L}] = 1``;
* cumulants agree with the CGF (``kappa_1 = K'(0)``, ``kappa_2 = K''(0)``) and
  ``K_Q(t) = K_P(t + 1)``;
* ``plrv_cdf + plrv_sf = 1`` with complementary inclusiveness, limits 0 and 1;
  the two-law forms ``plrv_cdf_pq`` / ``plrv_sf_pq`` equal the one-law ones;
* ``privacy_profile`` lies in [0, 1], is non-increasing, and equals
  ``P_Q(L > eps) - e^eps P_P(L > eps)`` (Zheng et al. 2020, Lemma 5.1);
* ``tradeoff`` lies in [0, 1 - alpha], is non-increasing and convex;
* ``swapped()`` negates the loss and exchanges P and Q;
* ``pair="both"``: profile = max over the pairs, trade-off symmetric;
* out-of-domain parameters raise ValueError naming the parameter.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symfdp import mechanisms as M
from symfdp.mechanisms.base import MAX_CUMULANT_ORDER, Mechanism

#: E_P[e^L] = 1 through the quadrature rule (spectral rules; rounding of sums).
TOL_NORMALISATION = 1e-12
#: Two evaluation routes of the same closed form / rule (a few ulps of O(1)).
TOL_ROUTES = 1e-11
#: Probabilities computed by complementary formulas.
TOL_PROB = 1e-14
#: Profile from the PLRV survival functions: their difference cancels in the
#: tails, so the comparison is absolute.
TOL_PROFILE_ABS = 1e-12
#: Convexity / monotonicity slack of float64 curves with values in [0, 1].
TOL_SHAPE = 1e-12
#: Trade-off of a "both" mechanism evaluated at its own value: the remove part
#: is an inverse by bisection (x tolerance 4e-16 relative) amplified by |f'|.
TOL_SYMMETRY = 1e-8

#: The tests are defined once and run from one subclass per mechanism (the
#: inherited-suite pattern), which hypothesis reports as differing executors.
_SUPPRESS = [HealthCheck.differing_executors, HealthCheck.too_slow]
contract = settings(suppress_health_check=_SUPPRESS)
contract_slow = settings(suppress_health_check=_SUPPRESS, max_examples=20)

ALPHA = np.concatenate(([0.0, 1e-9, 1e-4], np.linspace(0.01, 0.99, 99), [1.0]))


def _draw(data: st.DataObject, cls: type[Mechanism]) -> Mechanism:
    kwargs: dict[str, float] = {}
    for name, par in cls.PARAMS.items():
        lo, hi = par.typical
        if name == "p":
            kwargs[name] = 10 ** data.draw(st.floats(math.log10(lo), 0.0), label=name)
        else:
            kwargs[name] = data.draw(st.floats(lo, hi), label=name)
    return cls(**kwargs)  # type: ignore[call-arg]


class MechanismContract:
    """Base suite; subclasses set ``mechanism`` (skipped while it is None)."""

    mechanism: ClassVar[type[Mechanism] | None] = None

    def mech(self, data: st.DataObject) -> Mechanism:
        if self.mechanism is None:
            pytest.skip("abstract contract")
        return _draw(data, self.mechanism)

    @given(data=st.data())
    @contract
    def test_likelihood_ratio_normalisation(self, data: st.DataObject) -> None:
        for pr in self.mech(data).pairs:
            assert abs(pr.expect(np.exp, "P") - 1) < TOL_NORMALISATION
            assert abs(pr.expect(lambda l: np.exp(-l), "Q") - 1) < TOL_NORMALISATION

    @given(data=st.data())
    @contract
    def test_cumulants_match_cgf(self, data: st.DataObject) -> None:
        for pr in self.mech(data).pairs:
            kp = pr.cumulants(2, "P")
            kq = pr.cumulants(2, "Q")
            k0, k1, k2 = pr.cgf_derivatives(np.array([0.0, 1.0]), "P")
            scale = abs(kp[1]) + abs(kq[1]) + 1e-300
            assert abs(k0[0]) <= TOL_ROUTES * scale
            assert abs(k0[1]) <= TOL_ROUTES * scale  # E_P[e^L] = 1
            np.testing.assert_allclose(
                k1, [kp[0], kq[0]], rtol=1e-9, atol=TOL_ROUTES * scale
            )
            np.testing.assert_allclose(k2, [kp[1], kq[1]], rtol=1e-9)
            t = np.array([-1.5, -0.3, 0.4, 2.0])
            kq_t = pr.cgf_derivatives(t, "Q")
            kp_t = pr.cgf_derivatives(t + 1, "P")
            for a, b in zip(kq_t, kp_t, strict=True):
                np.testing.assert_allclose(a, b, rtol=1e-10, atol=TOL_ROUTES * scale)

    @given(data=st.data())
    @contract
    def test_cdf_sf_complement(self, data: st.DataObject) -> None:
        for pr in self.mech(data).pairs:
            lo, hi = pr.plrv_support()
            edges = [v for v in (lo, hi) if np.isfinite(v)]
            l = np.concatenate((np.linspace(-3, 3, 25), edges, [-np.inf, np.inf]))
            for under in ("P", "Q"):
                for inc in (True, False):
                    c = pr.plrv_cdf(l, under, inclusive=inc)
                    s = pr.plrv_sf(l, under, inclusive=not inc)
                    np.testing.assert_allclose(c + s, 1.0, atol=TOL_PROB)
                c = pr.plrv_cdf(np.sort(l), under)
                assert np.all(np.diff(c) >= -TOL_PROB)
                assert c[0] == 0.0 and c[-1] == 1.0

    @given(data=st.data())
    @contract
    def test_pq_functions_equal_one_law_functions(self, data: st.DataObject) -> None:
        """``plrv_cdf_pq`` / ``plrv_sf_pq`` (one pass for both laws where a
        family overrides them) equal ``plrv_cdf`` / ``plrv_sf`` under P and Q."""
        for pr in self.mech(data).pairs:
            lo, hi = pr.plrv_support()
            edges = [v for v in (lo, hi) if np.isfinite(v)]
            l = np.concatenate((np.linspace(-3, 3, 25), edges, [-np.inf, np.inf]))
            for inc in (True, False):
                cp, cq = pr.plrv_cdf_pq(l, inclusive=inc)
                sp, sq = pr.plrv_sf_pq(l, inclusive=inc)
                for got, under in ((cp, "P"), (cq, "Q")):
                    want = pr.plrv_cdf(l, under, inclusive=inc)
                    np.testing.assert_allclose(got, want, rtol=1e-15, atol=0)
                for got, under in ((sp, "P"), (sq, "Q")):
                    want = pr.plrv_sf(l, under, inclusive=inc)
                    np.testing.assert_allclose(got, want, rtol=1e-15, atol=0)

    @given(data=st.data())
    @contract_slow
    def test_privacy_profile(self, data: st.DataObject) -> None:
        m = self.mech(data)
        eps = np.linspace(-2.0, 6.0, 81)
        d = np.asarray(m.privacy_profile(eps))
        assert np.all((d >= 0) & (d <= 1))
        assert np.all(np.diff(d) <= TOL_SHAPE)
        for pr in m.pairs:
            generic = Mechanism.privacy_profile(pr, eps)
            np.testing.assert_allclose(
                pr.privacy_profile(eps), generic, atol=TOL_PROFILE_ABS
            )
        if len(m.pairs) == 2:
            both = np.maximum(*(pr.privacy_profile(eps) for pr in m.pairs))
            np.testing.assert_allclose(d, both, rtol=0, atol=0)

    @given(data=st.data())
    @contract_slow
    def test_tradeoff_is_a_tradeoff_function(self, data: st.DataObject) -> None:
        m = self.mech(data)
        for obj in (m, *m.pairs):
            f = np.asarray(obj.tradeoff(ALPHA))
            assert np.all(f >= -TOL_SHAPE) and np.all(f <= 1 - ALPHA + TOL_SHAPE)
            assert np.all(np.diff(f) <= TOL_SHAPE)
            u = np.linspace(0, 1, 201)
            fu = np.asarray(obj.tradeoff(u))
            assert np.all(fu[:-2] - 2 * fu[1:-1] + fu[2:] >= -TOL_SHAPE)
        if len(m.pairs) == 2:
            a = np.linspace(0.0, 1.0, 41)
            f = np.asarray(m.tradeoff(a))
            np.testing.assert_allclose(m.tradeoff(f), a, atol=TOL_SYMMETRY)

    @given(data=st.data())
    @contract
    def test_swapped_pair(self, data: st.DataObject) -> None:
        for pr in self.mech(data).pairs:
            sw = pr.swapped()
            l = np.linspace(-2.0, 2.0, 17)
            for under, other in (("P", "Q"), ("Q", "P")):
                np.testing.assert_allclose(
                    sw.plrv_cdf(l, under),
                    pr.plrv_sf(-l, other, inclusive=True),
                    atol=TOL_PROB,
                )
                k = pr.cumulants(4, other) * (-1.0) ** np.arange(1, 5)
                np.testing.assert_allclose(
                    sw.cumulants(4, under), k, rtol=1e-12, atol=1e-300
                )
            back = sw.swapped()
            np.testing.assert_allclose(
                back.plrv_cdf(l, "P"), pr.plrv_cdf(l, "P"), atol=0
            )
            x = np.linspace(-1.0, 2.0, 7)
            np.testing.assert_allclose(
                sw.log_likelihood_ratio(x), -pr.log_likelihood_ratio(x)
            )

    @given(data=st.data())
    @contract
    def test_densities_give_the_likelihood_ratio(self, data: st.DataObject) -> None:
        for pr in self.mech(data).pairs:
            x = np.array([0.0, 1.0]) if pr.name == "pure-dp" else np.linspace(-2, 3, 11)
            llr = np.log(pr.pdf(x, "Q")) - np.log(pr.pdf(x, "P"))
            np.testing.assert_allclose(
                llr, pr.log_likelihood_ratio(x), rtol=1e-12, atol=1e-13
            )

    def test_out_of_domain_parameters_raise(self) -> None:
        if self.mechanism is None:
            pytest.skip("abstract contract")
        cls = self.mechanism
        good: dict[str, Any] = {k: par.typical[0] for k, par in cls.PARAMS.items()}
        for name, par in cls.PARAMS.items():
            lo, hi = par.domain
            bad_values = [lo - 1.0] if not par.lo_open else [lo, lo - 1.0]
            if np.isfinite(hi):
                bad_values.append(hi + 0.5)
            for bad in bad_values:
                with pytest.raises(ValueError, match=name):
                    cls(**{**good, name: bad})  # type: ignore[call-arg]
        with pytest.raises(ValueError, match="order"):
            cls(**good).cumulants(0)  # type: ignore[call-arg]
        with pytest.raises(ValueError, match="order"):  # refused, not computed
            cls(**good).cumulants(MAX_CUMULANT_ORDER + 1)  # type: ignore[call-arg]
        with pytest.raises(ValueError, match="under"):
            cls(**good).cumulants(2, under="R")  # type: ignore[call-arg]


class TestGaussianContract(MechanismContract):
    mechanism = M.Gaussian


class TestLaplaceContract(MechanismContract):
    mechanism = M.Laplace


class TestPureDPContract(MechanismContract):
    mechanism = M.PureDP


class TestSubsampledGaussianContract(MechanismContract):
    mechanism = M.SubsampledGaussian


class TestSubsampledLaplaceContract(MechanismContract):
    mechanism = M.SubsampledLaplace


def test_every_registered_mechanism_has_a_contract() -> None:
    covered = {c.mechanism for c in MechanismContract.__subclasses__()}
    assert set(M.REGISTRY.values()) <= covered
    for name, cls in M.REGISTRY.items():
        assert cls.name == name and cls.PARAMS
