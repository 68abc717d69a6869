r"""The Gaussian-DP room: methods that summarise a whole composition by one
:math:`\mu` and answer with the symmetric curve :math:`G_\mu` (Dong et al.
(2019), Sec. 3.3 and 5): the central limit theorem (:class:`~.clt.CLT`)
and its Berry–Esseen bound (:class:`~.berry_esseen.BerryEsseen`), on the
template :class:`~.base.GDPAccountant`. Each accountant is imported on first use
(:mod:`symfdp.accountants.registry`): importing this package imports neither."""
