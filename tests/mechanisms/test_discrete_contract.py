"""The mechanism contract (test_mechanism_contract) for the finite losses."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from symfdp import mechanisms as M
from tests.mechanisms.test_mechanism_contract import MechanismContract, contract


class _OnIntegers(MechanismContract):
    """Outputs are integers: densities are compared there."""

    @given(data=st.data())
    @contract
    def test_densities_give_the_likelihood_ratio(self, data: st.DataObject) -> None:
        m = self.mech(data)
        x = np.arange(m.k) if isinstance(m, M.RandomizedResponse) else np.arange(-3, 5)
        llr = np.log(m.pdf(x, "Q")) - np.log(m.pdf(x, "P"))
        np.testing.assert_allclose(
            llr, m.log_likelihood_ratio(x), rtol=1e-12, atol=1e-13
        )


class TestRandomizedResponseContract(_OnIntegers):
    mechanism = M.RandomizedResponse


class TestDiscreteLaplaceContract(_OnIntegers):
    mechanism = M.DiscreteLaplace


class TestDiscreteGaussianContract(_OnIntegers):
    mechanism = M.DiscreteGaussian
