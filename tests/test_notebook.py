"""The example notebook runs top to bottom and shows rich output (issue 14).

Executed with nbclient in a fresh kernel, from a temporary directory, with this
checkout first on the kernel's path.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NOTEBOOK = Path(__file__).resolve().parents[1] / "examples" / "notebook_tour.ipynb"


def test_notebook_tour_executes(tmp_path, monkeypatch) -> None:
    root = str(NOTEBOOK.parents[1])
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, [root, os.getenv("PYTHONPATH")]))
    )
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("SYMFDP_PROGRESS", "0")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": tmp_path}},
    ).execute()
    cells = [c for c in nb.cells if c.cell_type == "code"]
    kinds = [
        {k for o in c.outputs for k in o.get("data", {})}
        | {o.output_type for o in c.outputs}
        for c in cells
    ]
    assert all("error" not in k for k in kinds)
    assert "text/markdown" in kinds[0]  # the curve's summary
    assert "image/png" in kinds[2]  # curve.plot() as the cell's value
    assert (tmp_path / "profile.csv").read_text().startswith("eps,delta,")
