"""The registry of findings (``symfdp.findings``) is complete and closed.

Every finding's evidence exists: a derivation script that reports its id with
``report.misprint``, or an experiment claim with ``finding=<id>``. Conversely
every ``report.misprint`` call of ``derivations/`` and every claim with a
``source_error`` in ``experiments/`` names a registered finding whose checks list
it. Read from the source (AST), so no experiment or script has to run.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from symfdp import findings
from symfdp.cli import main
from symfdp.cli import verify as verify_cli
from symfdp.reproduce import report as report_mod

ROOT = Path(__file__).resolve().parents[1]
REG = findings.registry()


def _literal(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _misprint_calls() -> dict[str, list[ast.Call]]:
    """``report.misprint(...)`` calls of each derivation script."""
    out: dict[str, list[ast.Call]] = {}
    for path in verify_cli.discover(ROOT / "derivations"):
        tree = ast.parse(path.read_text())
        out[path.stem] = [
            node
            for node in ast.walk(tree)
            if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "misprint"
        ]
    return out


def _misprint_ids(call: ast.Call, module: ast.Module) -> list[str]:
    """The finding id(s) of one call: a literal, a module constant, or an
    f-string over a loop (expanded against the registry by its literal prefix)."""
    first = call.args[0]
    if (lit := _literal(first)) is not None:
        return [lit]
    if isinstance(first, ast.Name):
        for node in module.body:
            if (
                isinstance(node, ast.Assign)
                and any(
                    isinstance(t, ast.Name) and t.id == first.id for t in node.targets
                )
                and (lit := _literal(node.value)) is not None
            ):
                return [lit]
    if isinstance(first, ast.JoinedStr) and (lit := _literal(first.values[0])):
        return [fid for fid in REG if fid.startswith(lit)] or [lit + "?"]
    raise AssertionError(f"misprint id is not a literal: {ast.dump(first)}")


def _experiment_claims() -> dict[str, dict[str, ast.Call]]:
    """Claims with a ``source_error`` keyword, by experiment id and claim id."""
    out: dict[str, dict[str, ast.Call]] = {}
    for path in sorted((ROOT / "experiments").glob("*.py")):
        if path.name.startswith("_"):
            continue
        tree = ast.parse(path.read_text())
        spec_id = None
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Spec":
                spec_id = next(
                    _literal(k.value) for k in node.keywords if k.arg == "id"
                )
        claims = {}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            kws = {k.arg: k.value for k in node.keywords}
            if "source_error" in kws and node.args:
                claim_id = _literal(node.args[0])
                assert claim_id is not None, f"{path.name}: claim id not a literal"
                claims[claim_id] = node
        if claims:
            assert spec_id is not None, path.name
            out[spec_id] = claims
    return out


def test_registry_is_well_formed() -> None:
    assert len(REG) == len(findings.FINDINGS)
    for f in findings.FINDINGS:
        assert f.printed and f.corrected and f.evidence and f.location
        assert f.printed != f.corrected


def test_every_verify_evidence_exists() -> None:
    calls = _misprint_calls()
    for f in findings.FINDINGS:
        for check in f.checks:
            if check.kind != "verify":
                continue
            assert check.item == f.id
            script = ROOT / "derivations" / f"{check.target}.py"
            assert script.is_file(), f"{f.id}: no {script}"
            module = ast.parse(script.read_text())
            ids = {i for c in calls[check.target] for i in _misprint_ids(c, module)}
            assert f.id in ids, f"{f.id}: {check.target} does not report it"


def test_every_misprint_of_verify_is_registered() -> None:
    for name, calls in _misprint_calls().items():
        module = ast.parse((ROOT / "derivations" / f"{name}.py").read_text())
        for call in calls:
            for fid in _misprint_ids(call, module):
                assert fid in REG, f"{name}: misprint {fid} is not in the registry"
                assert findings.Check("verify", name, fid) in REG[fid].checks


def test_every_reproduce_evidence_exists() -> None:
    claims = _experiment_claims()
    for f in findings.FINDINGS:
        for check in f.checks:
            if check.kind != "reproduce":
                continue
            assert check.item in claims.get(check.target, {}), (
                f"{f.id}: no claim {check.item} with a source_error in "
                f"experiment {check.target}"
            )


def test_every_source_error_claim_names_a_registered_finding() -> None:
    for spec_id, claims in _experiment_claims().items():
        for claim_id, call in claims.items():
            kws = {k.arg: k.value for k in call.keywords}
            fid = _literal(kws.get("finding"))
            assert fid in REG, f"{spec_id}/{claim_id}: finding {fid!r} not registered"
            check = findings.Check("reproduce", spec_id, claim_id)
            assert check in REG[fid].checks, f"{fid} does not list {spec_id}/{claim_id}"


def test_the_two_docstring_findings_are_checked_by_verify() -> None:
    for fid in ("zheng2020-recursion-q", "dong2019-kappa3bar-flat-segment"):
        assert any(c.kind == "verify" for c in REG[fid].checks)


def test_verify_findings_lists_every_finding(capsys) -> None:
    assert main(["verify", "--findings"]) == 0
    text = capsys.readouterr().out
    for f in findings.FINDINGS:
        assert f"{f.id}  [{f.kind}]" in text
    assert text.strip().splitlines()[-1].startswith(f"{len(REG)} finding(s)")
    assert main(["verify", "--findings", "--format", "markdown"]) == 0
    md = capsys.readouterr().out
    assert md.startswith(f"{len(REG)} findings about the sources")
    assert sum(line.startswith("| `") for line in md.splitlines()) == len(REG)


def test_parse_findings() -> None:
    out = "x\n[MISPRINT] a-b: eq. (1)\n    as printed: y\n[MISPRINT] c-d: z\n"
    assert verify_cli.parse_findings(out) == ("a-b", "c-d")


def test_verify_rejects_an_unregistered_misprint(tmp_path, monkeypatch, capsys):
    d = tmp_path / "derivations"
    d.mkdir()
    (d / "stray.py").write_text("print('[MISPRINT] nobody-knows: eq. (1)')\n")
    monkeypatch.setattr(verify_cli, "derivations_dir", lambda: d)
    assert main(["verify"]) == 1
    assert "outside the registry" in capsys.readouterr().out


def test_report_lists_findings_and_flags_strays() -> None:
    claims = [
        {"id": "min-error-sum", "verdict": "FAIL (source)", "finding": ""},
        {"id": "cor43-eq15", "verdict": "FAIL (source)", "finding": "x"},
    ]
    lines = report_mod._findings_section([{"id": "dong2019-fig6", "claims": claims}])
    text = "\n".join(lines)
    for fid in REG:
        assert f"`{fid}`" in text
    assert "outside the registry**: dong2019-fig6/min-error-sum" in text
    assert "`dong2019-fig6/cor43-eq15`: FAIL (source)" in text


@pytest.mark.parametrize(
    "bad", [dict(source="nope"), dict(kind="typo"), dict(checks=())]
)
def test_finding_validation(bad) -> None:
    base = REG["zheng2020-a7-he7"]
    fields = {k: getattr(base, k) for k in base.__dataclass_fields__} | bad
    with pytest.raises(ValueError):
        findings.Finding(**fields)


def test_findings_page_block_is_generated() -> None:
    """The findings block of docs/findings.md is the generator's output."""
    text = (ROOT / "docs" / "findings.md").read_text()
    begin, end = "<!-- findings:begin -->\n", "<!-- findings:end -->"
    assert begin in text and end in text, "docs/findings.md lost its markers"
    block = text.split(begin, 1)[1].split(end, 1)[0]
    assert block == findings.render_markdown(), (
        "docs/findings.md findings block is stale: paste `symfdp verify --findings "
        "--format markdown` between the markers"
    )


def test_get() -> None:
    assert findings.get("zheng2020-recursion-q").source == "zheng2020"
    with pytest.raises(ValueError, match="finding_id"):
        findings.get("no-such-finding")
    with pytest.raises(TypeError, match="finding_id"):
        findings.get(3)  # type: ignore[arg-type]
