"""Regenerate the sources' tables and figures: specs, claims, runner and report.

An experiment is a module in ``experiments/`` that defines

* ``SPEC``: a :class:`~symfdp.reproduce.spec.Spec` (id, source, parameters);
* ``compute(params) -> Result``: the tables (dicts of NumPy columns) and the
  claims checked against the published values;
* ``plot(tables, params) -> Figure``: the figure, built only from the tables as
  read back from their CSV files.

:func:`~symfdp.reproduce.runner.run_experiment` writes ``data.csv`` (and any
further tables), ``figure.png``, ``claims.json`` and ``manifest.json`` under
``results/<id>/``; :func:`~symfdp.reproduce.report.write_report` collects every
claim into ``results/REPORT.md``.
"""

from symfdp.reproduce.spec import Claim, Result, Spec, claim_close, claim_holds

__all__ = ["Claim", "Result", "Spec", "claim_close", "claim_holds"]
