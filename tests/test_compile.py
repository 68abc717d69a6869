"""Compiled evaluators: accuracy, in-memory and disk caching, robustness."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from _tolerances import RTOL_EVAL

from symfdp.numeric import compile as C
from symfdp.numeric import disk_cache, restricted
from symfdp.symbolic.symbols import Phi, lam, phi, x, z

TRUE_FUNCS = {
    "Phi": lambda t: (1 + sp.erf(t / sp.sqrt(2))) / 2,
    "phi": lambda t: sp.exp(-(t**2) / 2) / sp.sqrt(2 * sp.pi),
}
LAMS = {3: sp.Rational(3, 10), 4: sp.Rational(-1, 8), 5: sp.Rational(1, 20)}


def reference(expr: sp.Expr, var: sp.Symbol, value: float) -> float:
    """``expr`` at 30 digits with the true Phi, phi (not the code under test)."""
    expr = expr.replace(Phi, TRUE_FUNCS["Phi"]).replace(phi, TRUE_FUNCS["phi"])
    subs = {lam(r): v for r, v in LAMS.items()}
    subs[var] = sp.Rational(value)
    return float(expr.subs(subs).evalf(30))


@pytest.mark.parametrize(
    ("name", "var"),
    [("edgeworth_cdf", x), ("edgeworth_pdf", x), ("cornish_fisher", z)],
)
def test_evaluator_matches_evalf_30(name, var):
    ev = C.evaluator(name, 3)
    assert ev.args == (var.name, "lambda3", "lambda4", "lambda5")
    points = np.array([-3.0, -1.25, -0.5, 0.0, 0.75, 2.0, 3.0])
    kwargs = {f"lambda{r}": float(v) for r, v in LAMS.items()}
    got = ev(**{var.name: points}, **kwargs)
    expr = ev.expression()
    want = np.array([reference(expr, var, p) for p in points])
    np.testing.assert_allclose(got, want, rtol=RTOL_EVAL, atol=0)


def test_coefficient_evaluators_match_polynomials():
    from symfdp.symbolic.edgeworth import edgeworth_pdf_polynomial

    ev = C.evaluator("edgeworth_pdf_poly_coeffs", 2)
    assert ev.args == ("lambda3", "lambda4")
    coeffs = ev(lambda3=0.3, lambda4=-0.125)
    assert coeffs.shape == (7,)
    poly = edgeworth_pdf_polynomial(2).subs({lam(3): LAMS[3], lam(4): LAMS[4]})
    want = [float(c) for c in reversed(sp.Poly(poly, x).all_coeffs())]
    np.testing.assert_allclose(coeffs, want, rtol=RTOL_EVAL)
    # Broadcasting over the lambdas gives one column per point.
    many = ev(lambda3=np.array([0.3, 0.0]), lambda4=-0.125)
    assert many.shape == (7, 2)
    np.testing.assert_allclose(many[:, 0], coeffs)


def test_in_memory_cache_and_broadcasting():
    ev = C.evaluator("edgeworth_cdf", 1)
    assert C.evaluator("edgeworth_cdf", 1) is ev
    assert isinstance(ev(x=0.5, lambda3=0.1), float)
    out = ev(x=np.zeros((2, 3)), lambda3=np.array([0.0, 0.1, 0.2]))
    assert out.shape == (2, 3)
    assert C.evaluator("edgeworth_cdf", 0)(x=np.zeros(4)).shape == (4,)


def test_call_is_keyword_only_and_checked():
    ev = C.evaluator("edgeworth_cdf", 1)
    with pytest.raises(TypeError, match="missing"):
        ev(x=0.0)
    with pytest.raises(TypeError, match="unexpected"):
        ev(x=0.0, lambda3=0.1, lambda4=0.0)
    with pytest.raises(TypeError):
        ev(0.0, 0.1)


def test_registry_validation():
    with pytest.raises(ValueError, match="registered"):
        C.evaluator("no_such_thing", 1)
    with pytest.raises(ValueError, match="order"):
        C.evaluator("edgeworth_cdf", -1)
    with pytest.raises(ValueError, match="already registered"):
        C.register_derivation("edgeworth_cdf", lambda order: (x, (x,)))
    with pytest.raises(ValueError, match="name"):
        C.register_derivation("Bad Name", lambda order: (x, (x,)))
    with pytest.raises(TypeError):
        C.register_derivation("not_callable", 3)
    assert "edgeworth_pdf_poly_coeffs" in C.derivations()


def _square_builder(order: int):
    import sympy

    t = sympy.Symbol("t", real=True)
    return t**order + Phi(t), (t,)


def test_register_derivation_and_compile_expr():
    C.register_derivation("test_power_plus_cdf", _square_builder, replace=True)
    ev = C.evaluator("test_power_plus_cdf", 3)
    assert ev.args == ("t",)
    np.testing.assert_allclose(ev(t=np.array([2.0])), [8.0 + 0.9772498680518208])
    t = sp.Symbol("t", real=True)
    vec = C.compile_expr([t, t**2, sp.Integer(1)], [t], label="powers")
    np.testing.assert_array_equal(vec(t=np.array([1.0, 3.0])), [[1, 3], [1, 9], [1, 1]])
    assert C.compile_expr([t, t**2, sp.Integer(1)], [t]) is vec
    with pytest.raises(ValueError, match="free symbols"):
        C.compile_expr(t + x, [t])


def test_restricted_loader_rejects_code():
    bad = [
        "import os\ndef _lambdifygenerated(x):\n    return x\n",
        "def _lambdifygenerated(x):\n    return x.__class__\n",
        "def _lambdifygenerated(x):\n    return open('f')\n",
        "def _lambdifygenerated(x):\n    return [y for y in x]\n",
    ]
    for source in bad:
        with pytest.raises(C._CacheError):
            C._exec_source(source, "_lambdifygenerated", {"open": "builtins:open"})
    with pytest.raises(ValueError, match="disallowed"):
        C.parse_srepr("__import__('os')")
    expr = sp.Tuple(Phi(x) / 3 - lam(3) * x**2, sp.sqrt(2) * sp.pi)
    assert C.parse_srepr(sp.srepr(expr)) == expr


F = "_lambdifygenerated"
NS = {"exp": "numpy:exp", "Phi": "numeric:Phi"}


@pytest.mark.parametrize(
    "source",
    [
        f"@exp\ndef {F}(x):\n    return x\n",  # a decorator
        f"def {F}(x=exp(1)):\n    return x\n",  # a call at definition time
        f"def {F}(x: exp):\n    return x\n",  # an annotation
        f"def {F}(x):\n    return x\nexp(1)\n",  # a statement after it
        f"def {F}(x):\n    return x\ndef {F}(y):\n    return y\n",  # two
        f"def {F}(x):\n    return x\n{F} = 3\n",  # not a function in the end
        "def other(x):\n    return x\n",  # another name
        f"def {F}(x):\n    return x.real\n",  # attribute of a local
        f"def {F}(x):\n    return (1).real\n",  # attribute of a number
        f"def {F}(x):\n    return 1.5.real\n",
        f"def {F}(x):\n    return x0.e5\n",
        f"def {F}(x):\n    return (lambda: x)()\n",  # nested code
        f"def {F}(x):\n    def g():\n        return x\n    return g()\n",
        f"def {F}(x):\n    import os\n    return x\n",
        f"def {F}(x):\n    global exp\n    return x\n",
        f"def {F}(x):\n    return (y := x)\n",  # walrus (a second colon)
        f"def {F}(x):\n    return x if x else 0\n",  # keywords
        f"def {F}(x):\n    return x < 1\n",  # comparison
        f"def {F}(x):\n    return open\n",  # a global outside the namespace
        f"def {F}(x):\n    return __builtins__\n",
        f"def {F}(x):\n    return {{}}\n",  # braces
        f"def {F}(x):\n    return exp  # comment\n",
        f"def {F}(x):\n\treturn x\n",  # a tab
        f"def {F}(x):\n    return 1_0\n",
        f"def {F}(x):\n    return x +\n",  # does not compile
    ],
)
def test_restricted_loader_rejects(source):
    with pytest.raises(C._CacheError):
        C._exec_source(source, F, NS)


def test_restricted_loader_checks_the_namespace():
    source = f"def {F}(x):\n    return exp(x)\n"
    assert C._exec_source(source, F, NS)(0.0) == 1.0
    for bad in (
        {"exp": "numpy:log"},  # a name bound to another object's spec
        {"exp": "builtins:exp"},
        {"exp": "os:system"},
        {"exp": "numpy:_exp"},
        {"_exp": "numpy:exp", "exp": "numpy:exp"},
        {"exp": "numpy:exp", "os": "numpy:os"},  # every entry must resolve
    ):
        with pytest.raises(C._CacheError):
            C._exec_source(source, F, bad)
    with pytest.raises(C._CacheError):
        C._exec_source(source, F, None)
    # Namespace entries cannot make keywords into allowed words.
    imports = f"def {F}(x):\n    import os\n    return x\n"
    with pytest.raises(C._CacheError):
        C._exec_source(imports, F, {"import": "numpy:import", "os": "numpy:os"})


def test_restricted_loader_accepts_what_lambdify_writes():
    for name, order in [("edgeworth_cdf", 4), ("cornish_fisher_poly_coeffs", 4)]:
        ev = C.evaluator(name, order)
        namespace = restricted.namespace_spec(ev.fn)
        assert namespace is not None
        fn = C._exec_source(ev.source, F, namespace)
        values = [0.25] * len(ev.args)
        np.testing.assert_array_equal(
            np.asarray(fn(*values), dtype=float),
            np.asarray(ev.fn(*values), dtype=float),
        )
    num = f"def {F}(x):\n    return 1.5e-3*x + 2j - .5 + 10.0E+2 + (1/3)*x**2\n"
    assert C._exec_source(num, F, {})(1.0) == 1.5e-3 + 2j - 0.5 + 1000.0 + 1 / 3


# ---------------------------------------------------------------------------
# Disk cache, across processes

PROBE = (
    "import sys\n"
    "from symfdp.numeric.compile import evaluator\n"
    "e = evaluator('edgeworth_cdf', 3)\n"
    "v = e(x=0.5, lambda3=0.3, lambda4=-0.1, lambda5=0.05)\n"
    "print(e.fingerprint, repr(v), 'sympy' in sys.modules)\n"
)


def _probe(cache: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "SYMFDP_NO_CACHE"}
    env.update(SYMFDP_CACHE_DIR=str(cache), **extra)
    return subprocess.run(
        [sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )


def _cache_files(cache: Path) -> list[Path]:
    return sorted((cache / "evaluators").glob("edgeworth_cdf-3-*.json"))


def test_disk_cache_hit_in_fresh_process(tmp_path):
    cold = _probe(tmp_path).stdout.split()
    files = _cache_files(tmp_path)
    assert len(files) == 1
    record = json.loads(files[0].read_text())
    assert record["fingerprint"] == cold[0]
    warm = _probe(tmp_path).stdout.split()
    assert warm[0] == cold[0] and warm[1] == cold[1]
    assert cold[2] == "True"  # the cold run derived with SymPy ...
    assert warm[2] == "False"  # ... the warm run loaded without importing it


def test_corrupt_cache_file_is_rebuilt(tmp_path):
    cold = _probe(tmp_path).stdout.split()
    (path,) = _cache_files(tmp_path)
    original = path.read_text()
    variants = [
        "{not json",
        original[: len(original) // 2],  # truncated
        original.replace("lambda3", "lambda9", 1),  # tampered: checksum mismatch
        "",
    ]
    for text in variants:
        path.write_text(text)
        run = _probe(tmp_path)
        assert run.stdout.split()[:2] == cold[:2]
        assert "rebuilding" in run.stderr
        rebuilt = json.loads(path.read_text())
        assert rebuilt["fingerprint"] == cold[0]
        assert rebuilt["checksum"] == C._checksum(rebuilt)


def test_two_processes_writing_the_same_key(tmp_path):
    env = {**os.environ, "SYMFDP_CACHE_DIR": str(tmp_path)}
    env.pop("SYMFDP_NO_CACHE", None)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", PROBE],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    assert outs[0][0].split()[:2] == outs[1][0].split()[:2]
    files = list((tmp_path / "evaluators").iterdir())
    assert [f.name for f in files if f.suffix == ".tmp"] == []
    (path,) = _cache_files(tmp_path)
    record = json.loads(path.read_text())
    assert record["checksum"] == C._checksum(record)


def test_no_cache_env_disables_disk_cache(tmp_path):
    _probe(tmp_path, SYMFDP_NO_CACHE="1")
    assert not (tmp_path / "evaluators").exists()


# ---------------------------------------------------------------------------
# Derived texts (what `symfdp derive` prints), kept by the same disk layer


def test_cached_text_is_rendered_once_and_rebuilt_when_damaged(
    tmp_path, monkeypatch, caplog
):
    monkeypatch.setenv("SYMFDP_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("SYMFDP_NO_CACHE", raising=False)
    calls: list[int] = []

    def render() -> str:
        calls.append(1)
        return "% a derived text\nF(x) = \\Phi(x)"

    deps = ("symfdp.symbolic.hermite", "symfdp.symbolic.symbols")
    first = disk_cache.cached_text("test-text", 3, render, deps)
    assert disk_cache.cached_text("test-text", 3, render, deps) == first
    assert first == render() and len(calls) == 2  # one render, then ours
    (path,) = (tmp_path / "texts").glob("test-text-3-*.json")
    record = json.loads(path.read_text())
    assert record["text"] == first and record["checksum"] == C._checksum(record)
    # Another order, another name or other sources: another key.
    keys = {
        disk_cache.text_key("test-text", 3, deps),
        disk_cache.text_key("test-text", 4, deps),
        disk_cache.text_key("test-other", 3, deps),
        disk_cache.text_key("test-text", 3, deps[:1]),
    }
    assert len(keys) == 4 and None not in keys
    for damaged in ("{", record | {"text": "F(x) = 0"}, record | {"key": "0" * 64}):
        path.write_text(damaged if isinstance(damaged, str) else json.dumps(damaged))
        calls.clear()
        with caplog.at_level("WARNING", logger="symfdp.numeric.disk_cache"):
            assert disk_cache.cached_text("test-text", 3, render, deps) == first
        assert calls == [1] and "rebuilding" in caplog.text
        caplog.clear()
    # A dependency that cannot be read: no key, the text is rendered each time.
    assert disk_cache.text_key("test-text", 3, ("no_such_module.x",)) is None
    calls.clear()
    assert disk_cache.cached_text("t", 1, render, ("no_such_module.x",)) == first
    assert disk_cache.cached_text("t", 1, render, ("no_such_module.x",)) == first
    assert len(calls) == 2
    monkeypatch.setenv("SYMFDP_NO_CACHE", "1")
    calls.clear()
    disk_cache.cached_text("test-text", 5, render, deps)
    assert calls == [1] and not list((tmp_path / "texts").glob("test-text-5-*"))


def test_keys_read_modules_without_importing_them():
    probe = (
        "import sys\n"
        "from symfdp.numeric import disk_cache\n"
        "print(disk_cache.text_key('t', 1, ('symfdp.accountants.saddlepoint.orders',"
        " 'symfdp.symbolic.edgeworth')) is not None, disk_cache.versions()[1] != '',"
        " [m for m in ('sympy', 'numpy', 'symfdp.accountants', 'importlib.metadata')"
        " if m in sys.modules])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.split(maxsplit=2)
    assert out == ["True", "True", "[]\n"]
