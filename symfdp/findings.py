r"""Registry of findings about the sources: formulas and sentences that do not hold
as printed.

Each :class:`Finding` names its source, where in it the statement stands, the
printed form, the corrected form and the evidence a reader can re-run. Evidence
is one or more :class:`Check` entries:

* ``Check("verify", script, id)``: ``symfdp verify <script>`` prints
  ``[MISPRINT] <id>: ...`` with the printed and corrected forms, and the checks
  (exact SymPy or 30-digit mpmath) that prove the corrected form;
* ``Check("reproduce", experiment, claim)``: ``symfdp reproduce <experiment>``
  gives the claim ``claim`` the verdict ``FAIL (source)`` in ``results/REPORT.md``,
  with the numbers that contradict the statement.

Code that works around a finding cites its id (``# finding: <id>``). The
registry is closed: every ``[MISPRINT]`` line of ``symfdp verify`` and every
``FAIL (source)`` claim of the reproduction names an id listed here
(``tests/test_findings.py``). ``symfdp verify --findings`` lists them;
``--format markdown`` renders the table the README shows.

Sources: Zheng, Dong, Long, Su (2020), "Sharp Composition Bounds for Gaussian
Differential Privacy via Edgeworth Expansion" (arXiv, Feb. 27 2020); Dong, Roth,
Su (2019), "Gaussian Differential Privacy" (arXiv v1); Alghamdi et al. (2022),
slides "The Saddle-Point Accountant for Differential Privacy" (Oct. 19 2022);
Kaissis, Hayes, Ziller, Rueckert (2023), "Bounding data reconstruction attacks
with the hypothesis testing interpretation of DP" (arXiv 2307.03928 v1).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Literal

Kind = Literal["misprint", "convention", "quantitative claim"]
CheckKind = Literal["verify", "reproduce"]

KINDS: Final[tuple[str, ...]] = ("misprint", "convention", "quantitative claim")

CITATIONS: Final[dict[str, str]] = {
    "zheng2020": "Zheng et al. (2020)",
    "dong2019": "Dong et al. (2019)",
    "alghamdi2022": "Alghamdi et al. (2022)",
    "kaissis2023": "Kaissis et al. (2023)",
}

SOURCES: Final[dict[str, str]] = {
    "zheng2020": "Zheng et al. (2020), Sharp Composition Bounds for GDP via Edgeworth",
    "dong2019": "Dong, Roth, Su (2019), Gaussian Differential Privacy",
    "alghamdi2022": "Alghamdi et al. (2022), The Saddle-Point Accountant (slides)",
    "kaissis2023": "Kaissis et al. (2023), Bounding data reconstruction attacks",
}


@dataclass(frozen=True, slots=True)
class Check:
    """Where a finding is checked and how to re-run it.

    Attributes:
        kind: ``"verify"`` (a derivation script) or ``"reproduce"`` (an
            experiment's claim).
        target: The derivation script's name (``derivations/<target>.py``) or the
            experiment id.
        item: For ``verify`` the finding id the script reports; for
            ``reproduce`` the claim id.
    """

    kind: CheckKind
    target: str
    item: str

    def command(self) -> str:
        """The command a reader runs to see the evidence."""
        if self.kind == "verify":
            return f"symfdp verify {self.target} -v"
        return f"symfdp reproduce {self.target}"

    def describe(self) -> str:
        """Where the reader sees it."""
        if self.kind == "verify":
            return f"`symfdp verify {self.target}` ([MISPRINT] {self.item})"
        return (
            f"`symfdp reproduce {self.target}`, claim `{self.item}` "
            "(REPORT.md, FAIL (source))"
        )


@dataclass(frozen=True, slots=True)
class Finding:
    """One statement of a source that does not hold as printed.

    Attributes:
        id: ``<source>-<slug>``, e.g. ``"zheng2020-recursion-q"``.
        source: Key of :data:`SOURCES`.
        location: Equation, section, page or slide.
        printed: The statement as printed (formula or sentence).
        corrected: What holds, by the paper's own definitions.
        evidence: One-sentence summary of the evidence.
        checks: Where it is checked (at least one).
        kind: ``"misprint"`` (a formula or word that does not hold as printed),
            ``"convention"`` (a mismatch of conventions: law, direction, sign,
            sampling scheme) or ``"quantitative claim"`` (a number or a "within",
            "about", "faster by" sentence that the source's own numbers or
            symfdp's reproduction contradict).
    """

    id: str
    source: str
    location: str
    printed: str
    corrected: str
    evidence: str
    checks: tuple[Check, ...]
    kind: Kind

    def __post_init__(self) -> None:
        if self.source not in SOURCES:
            raise ValueError(f"unknown source {self.source!r}. Found in {self.id}.")
        if not self.id.startswith(self.source + "-"):
            raise ValueError(f"id must start with '{self.source}-'. Found {self.id}.")
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}. Found {self.kind!r}.")
        if not self.checks:
            raise ValueError(f"finding {self.id} needs at least one check.")


def _v(script: str, fid: str) -> Check:
    return Check("verify", script, fid)


def _r(experiment: str, claim: str) -> Check:
    return Check("reproduce", experiment, claim)


FINDINGS: Final[tuple[Finding, ...]] = (
    # ------------------------------------------------------------ Zheng et al. 2020
    Finding(
        id="zheng2020-method-i-quantile",
        source="zheng2020",
        location="Sec. 3.1, Method (i), the quantile equation",
        printed="solve F_EW(h) - 1 - alpha = 0 for h",
        corrected="F_EW(h) - (1 - alpha) = 0, i.e. h = F_EW^{-1}(1 - alpha)",
        evidence="As printed there is no root at order 0 (Phi(h) < 1 < 1 + alpha); "
        "the corrected equation is solved by the Cornish-Fisher quantile (SymPy).",
        checks=(_v("edgeworth_terms", "zheng2020-method-i-quantile"),),
        kind="misprint",
    ),
    Finding(
        id="zheng2020-appA-truncation",
        source="zheng2020",
        location="App. A, truncation error after (A.8) and (A.9)",
        printed="error dominated by sigma^-5 K5 (it)^5/120 at n^(-3/2); CDF error "
        "O(n^(-2) h^7 + n^(-3/2) h^3)",
        corrected="the n^(-3/2) term also holds K3 K4 (it)^7/144 and K3^3 (it)^9/1296: "
        "-phi(h)[K5 He4/120 + K3K4 He6/144 + K3^3 He8/1296], O(n^(-3/2)(1 + |h|^8))",
        evidence="The n^(-3/2) term of the Edgeworth CDF derived exactly (SymPy) has "
        "degree 8 in h.",
        checks=(_v("edgeworth_terms", "zheng2020-appA-truncation"),),
        kind="misprint",
    ),
    Finding(
        id="zheng2020-a7-he7",
        source="zheng2020",
        location="eq. (A.7), He_7",
        printed="He_7(h) = h^7 - 21 h^5 + 105 h^3",
        corrected="He_7(h) = h^7 - 21 h^5 + 105 h^3 - 105 h",
        evidence="The recurrence He_7 = x He_6 - 6 He_5 on the paper's own He_6, He_5 "
        "and SymPy's hermite_prob_poly give the corrected form (exact).",
        checks=(_v("hermite_check", "zheng2020-a7-he7"),),
        kind="misprint",
    ),
    Finding(
        id="zheng2020-recursion-q",
        source="zheng2020",
        location="Sec. 5.1, the recursion after Lemma 5.2 (and its gridded form)",
        printed="delta_{k+1}(eps) = int delta_k(eps - L(x)) dx",
        corrected="delta_{k+1}(eps) = int delta_k(eps - L(x)) q(x) dx (Lemma 5.2 and "
        "its proof in App. D.2)",
        evidence="Randomised response (counting measure): the printed sum gives "
        "delta_1(0) = 1 - e^{-eps0}, the true value is tanh(eps0/2) (exact); with q "
        "the recursion reproduces the closed forms (exact, and G_mu at 30 digits), "
        "without it the Gaussian integral diverges.",
        checks=(_v("numerical_recursion", "zheng2020-recursion-q"),),
        kind="misprint",
    ),
    Finding(
        id="zheng2020-mu-n-variance",
        source="zheng2020",
        location="Sec. 3, mu_n (defined before (3.3), used in (3.4)/(3.5))",
        printed="mu_n = (E_Q[T_n] - E_P[T_n]) / sqrt(Var_Q[T_n]), then "
        "f = F~_n((F_n^{-1}(1-alpha) - mu_n) sqrt(Var_P/Var_Q)) for asymmetric f",
        corrected="(3.4)/(3.5) hold with mu_n = (E_Q[T_n] - E_P[T_n]) / "
        "sqrt(Var_P[T_n]) (as in the authors' code); the two agree only for "
        "symmetric f",
        evidence="The step of (3.4) exactly (SymPy); on the subsampled Gaussian add "
        "pair (p = 1/2, mu = 2, n = 1, exact laws) (3.5) with the P variance gives "
        "T(P, Q) to 30 digits, with the printed mu_n it is off by 0.09 to 0.39.",
        checks=(_v("two_sided_formula", "zheng2020-mu-n-variance"),),
        kind="convention",
    ),
    Finding(
        id="zheng2020-sec53-sampling-rate",
        source="zheng2020",
        location="Sec. 5.3, paragraph after Table 2 (the CLT regime deferred to "
        "App. E.2)",
        printed="We also investigated the case p = 0.5/n^{-1/2}, where the "
        "convergence of CLT is guaranteed",
        corrected="p = 0.5/n^{1/2} (as in App. E.2 and Figs. E.1-E.2): then "
        "p sqrt(n) = 1/2 = nu; the printed p = 0.5 sqrt(n) exceeds 1 for n > 4 and "
        "p sqrt(n) = n/2 has no limit",
        evidence="Exact (SymPy): the printed rate is not a probability for n > 4 "
        "and violates the CLT condition p sqrt(n) -> nu > 0 it is quoted for.",
        checks=(_v("zheng_parameters", "zheng2020-sec53-sampling-rate"),),
        kind="misprint",
    ),
    Finding(
        id="zheng2020-table2-three-orders",
        source="zheng2020",
        location="Sec. 5.3, text on Table 2",
        printed="The runtime of Numerical has grown three orders of magnitude from "
        "n = 1 to n = 500",
        corrected="about 400x (14212.1 s / 35.7 s = 398, 2.6 orders of magnitude); a "
        "cost of n N integrations plus a fixed part cannot exceed 500x",
        evidence="The paper's own Table 2 and its Sec. 5.1 cost model.",
        checks=(_r("zheng2020-table2", "numerical-three-orders"),),
        kind="quantitative claim",
    ),
    Finding(
        id="zheng2020-edgeworth-not-a-bound",
        source="zheng2020",
        location="Abstract and Sec. 1 ('analytical and sharp privacy bounds under "
        "composition'; 'our new privacy bounds tighten the composition bounds')",
        printed="the Edgeworth method gives privacy bounds under composition",
        corrected="it gives an approximation of f^{(x)n} with error O(n^{-3/2}) (Sec. "
        "3), on both sides of the true trade-off: a mechanism is not f_EW-DP in "
        "general",
        evidence="Fig. 5.1 setting (Laplace, n = 3, 5, 10): the degree-2 Edgeworth "
        "curve lies above the certified upper end of the true trade-off at about "
        "half of the alpha grid (by up to 1e-2) and below its lower end at the rest.",
        checks=(_r("zheng2020-fig5.1", "ew-is-a-bound"),),
        kind="quantitative claim",
    ),
    # ------------------------------------------------------------ Dong et al. 2019
    Finding(
        id="dong2019-eq15-middle-line",
        source="dong2019",
        location="Cor. 4.3, eq. (15), the middle line",
        printed="max{f_{eps',delta'}(alpha), 1 - p delta - p (e^eps - 1)/(e^eps + 1) "
        "- alpha}",
        corrected="max{f_{eps',delta'}(alpha), 1 - p (e^eps - 1 + 2 delta)/(e^eps + 1) "
        "- alpha}; the printed line is lower by p delta tanh(eps/2) (a valid but "
        "loose bound; equal for delta = 0)",
        evidence="Eq. (14) with x* = (1 - delta)/(1 + e^eps) gives the corrected "
        "intercept (SymPy); Fig. 6's parameters show the gap numerically.",
        checks=(
            _v("subsampling_eps_delta", "dong2019-eq15-middle-line"),
            _r("dong2019-fig6", "cor43-eq15"),
        ),
        kind="misprint",
    ),
    Finding(
        id="dong2019-kappa3bar-flat-segment",
        source="dong2019",
        location="Sec. 5.3, Lemma functionalGmurep (proof in App. G): kappa3-bar "
        "of C_p(G_mu)",
        printed="kappa3_bar = int_{mu/2}^oo |Z - kl|^3 (p phi(x-mu) + (1-p) phi(x)) dx "
        "+ int_{mu/2}^oo |Z + kl|^3 phi(x) dx",
        corrected="the same + (1-p)(1 - 2 Phi(-mu/2)) kl^3, the flat segment "
        "[x*, f_p(x*)] of C_p(G_mu) where log|f'| = 0 (order p^6)",
        evidence="kappa3_bar(C_p(G_mu)) from its definition int_0^1 |log|f'| + kl|^3 "
        "(three pieces of C_p(G_mu)) at 30 digits equals the printed value plus the "
        "flat-segment term (mu = 1, p = 0.5: 0.434990 vs 0.434048 printed).",
        checks=(_v("functional_gmu_rep", "dong2019-kappa3bar-flat-segment"),),
        kind="misprint",
    ),
    Finding(
        id="dong2019-group-within-0.005",
        source="dong2019",
        location="Sec. 2.5, remark after Prop. grouplimit",
        printed="for mu = 1, k = 4, 1 - (1 - f_{eps,0})^{ok} is within 0.005 of "
        "T(Lap(0,1), Lap(mu,1)) uniformly over [0, 1]",
        corrected="the uniform gap is larger than 0.005 (30-digit evaluation at the "
        "maximising alpha); coarse alpha grids understate it",
        evidence="Sup over [0, 1] by bounded minimisation and 30-digit check.",
        checks=(_r("dong2019-claims", "group-within-0.005"),),
        kind="quantitative claim",
    ),
    Finding(
        id="dong2019-min-error-sum-lower",
        source="dong2019",
        location="Sec. 4.1, text on Fig. 6 (right panel) and Cor. 4.3",
        printed="the minimal sum of type I and type II errors with subsampling can be "
        "significantly lower than the prediction of Lemma DPsubsamplerep",
        corrected="higher: C_p(f_{eps,delta}) >= f_{eps',delta'} forces "
        "min(alpha + C_p) >= min(alpha + f_{eps',delta'})",
        evidence="min(alpha + C_p) vs min(alpha + f_{eps',delta'}) at eps = 3, "
        "delta = 0.1, p = 0.2.",
        checks=(_r("dong2019-fig6", "min-error-sum"),),
        kind="quantitative claim",
    ),
    # ------------------------------------------------------- Alghamdi et al. 2022
    Finding(
        id="alghamdi2022-cfs2-pair",
        source="alghamdi2022",
        location="slides, DP-SGD example (CF-S2)",
        printed="P = p N(0, s^2C^2) + (1-p) N(C, s^2C^2), "
        "L = log(1 - p + p e^{C(2X-C)/(2s^2)})",
        corrected="P = (1-p) N(0, s^2C^2) + p N(C, s^2C^2), "
        "L = log(1 - p + p e^{(2X-C)/(2s^2C)}) (weights swapped; the exponent holds "
        "only for C = 1)",
        evidence="log dP/dQ of the printed pair is not the printed L, even for C = 1; "
        "the corrected pair gives the corrected L (SymPy).",
        checks=(_v("saddlepoint_formulas", "alghamdi2022-cfs2-pair"),),
        kind="misprint",
    ),
    Finding(
        id="alghamdi2022-all-eps-accuracy",
        source="alghamdi2022",
        location="slides, summary: 'works for all epsilon and delta'",
        printed="the saddle-point accountant works for all epsilon and delta",
        corrected="valid output for every eps and delta, but not relatively accurate "
        "in the far tail, where the slides' own error bound (CF-S7) promises no "
        "relative accuracy",
        evidence="delta_hat_2 vs certified brackets of relative width <= 1e-2 over "
        "eps in [-2, 20], sigma = 1 and 0.65, n = 2000: 15.4% off at sigma = 1, "
        "eps = 5.2, against the claim's 15% tolerance (a marginal verdict; full run "
        "only, --quick does not resolve that tail and passes).",
        checks=(_r("alghamdi2022-claims", "works-all-eps-accuracy"),),
        kind="quantitative claim",
    ),
    # -------------------------------------------------------- Kaissis et al. 2023
    Finding(
        id="kaissis2023-mc-rate-steps",
        source="kaissis2023",
        location="Sec. 2, paragraph on the Monte Carlo estimator of [11]",
        printed="MC error rate O((kappa N)^{-1/2}), N the number of steps",
        corrected="O((kappa S)^{-1/2}), S the number of samples: the error does not "
        "shrink with the composition steps",
        evidence="Slope of log std vs log N ~ 0 (vs -0.5 in log S).",
        checks=(_r("kaissis2023-claims", "mc-rate-in-steps"),),
        kind="misprint",
    ),
    Finding(
        id="kaissis2023-proof-equality",
        source="kaissis2023",
        location="Sec. 4.1, proof of Theorem 1",
        printed="1 - beta <= e^eps alpha + delta, 'i.e. P(alpha) = e^eps alpha_phi "
        "+ delta'",
        corrected="P(alpha) <= e^eps alpha + delta (equality only where the line "
        "touches the trade-off curve)",
        evidence="G_1 at eps = 1, alpha = 0.1: P(alpha) = 0.3891 < 0.3993.",
        checks=(_r("kaissis2023-claims", "proof-equality"),),
        kind="misprint",
    ),
    Finding(
        id="kaissis2023-slm-formula",
        source="kaissis2023",
        location="Sec. 4.3 (experimental details), SLM conversion",
        printed="eps = log(1+p(e^{N D1/b} - 1) (unbalanced parenthesis; one Poisson "
        "sample for all N steps)",
        corrected="with a fresh Poisson sample per step (the paper's SLM pair) the "
        "pure-DP eps is N log(1 + p(e^{D1/b} - 1)); the printed value is a valid "
        "but loose bound (100 vs 16.4 at the Fig. 1b grid end)",
        evidence="Certified pure-DP eps of N subsampled Laplace steps (Numerical).",
        checks=(_r("kaissis2023-conversions", "slm-printed-formula"),),
        kind="convention",
    ),
    Finding(
        id="kaissis2023-clt-mu-exponent",
        source="kaissis2023",
        location="Sec. 2, CLT limit of the subsampled trade-off (main text)",
        printed="mu~ = p sqrt(N (e^{mu_2} - 1))",
        corrected="mu~ = p sqrt(N (e^{mu_2^2} - 1)) (the paper's footnote "
        "e^{1/sigma^2} with Delta_2 = 1; Bu et al.)",
        evidence="With mu_2 = 1.43 the printed form misses the ground truth by "
        "0.11-0.14 and does not improve with N; the footnote form converges.",
        checks=(_r("kaissis2023-conversions", "clt-mu-main-text"),),
        kind="misprint",
    ),
    Finding(
        id="kaissis2023-gt-weeks-cifar",
        source="kaissis2023",
        location="Sec. 4.2 (supplementary figure): the numerical ground truth "
        "'would take on the order of weeks to compute'",
        printed="on the order of weeks (all panels)",
        corrected="days for the CIFAR-10 panels at their step counts (875 to 2,500) "
        "under the paper's own cost model; weeks only for ImageNet",
        evidence="G = 1000 grid points x N steps x measured 25-digit mp.quad time.",
        checks=(_r("kaissis2023-fig2", "gt-weeks-cifar"),),
        kind="quantitative claim",
    ),
)


def registry() -> dict[str, Finding]:
    """Every finding, by id (ids are unique)."""
    out: dict[str, Finding] = {}
    for f in FINDINGS:
        if f.id in out:
            raise ValueError(f"duplicate finding id {f.id}.")
        out[f.id] = f
    return out


def get(finding_id: str) -> Finding:
    """The finding with this id.

    Raises:
        TypeError: ``finding_id`` is not a string.
        ValueError: no finding has this id.
    """
    if not isinstance(finding_id, str):
        raise TypeError(f"finding_id must be a str. Found {type(finding_id).__name__}.")
    reg = registry()
    if finding_id not in reg:
        raise ValueError(
            f"finding_id must be one of {sorted(reg)}. Found {finding_id!r}."
        )
    return reg[finding_id]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(findings: Iterable[Finding] = FINDINGS) -> str:
    """A Markdown block: the count by kind and one table row per finding."""
    items = list(findings)
    counts = {k: sum(f.kind == k for f in items) for k in KINDS}
    by_kind = ", ".join(f"{n} {k}" + ("s" if n != 1 else "") for k, n in counts.items())
    lines = [
        f"{len(items)} findings about the sources ({by_kind}); each is re-run by the "
        "command in its last column (`symfdp verify --findings` lists them).",
        "",
        "| id | source, location | printed | corrected | where checked |",
        "|---|---|---|---|---|",
    ]
    for f in items:
        where = "; ".join(c.command() for c in f.checks)
        lines.append(
            f"| `{f.id}` | {CITATIONS[f.source]}, "
            f"{_cell(f.location)} | {_cell(f.printed)} | {_cell(f.corrected)} "
            f"| `{where}` |"
        )
    return "\n".join(lines) + "\n"


def render_text(findings: Iterable[Finding] = FINDINGS) -> str:
    """Plain text: one block per finding."""
    items = list(findings)
    out = []
    for f in items:
        out += [
            f"{f.id}  [{f.kind}]",
            f"  source:    {SOURCES[f.source]}",
            f"  location:  {f.location}",
            f"  printed:   {f.printed}",
            f"  corrected: {f.corrected}",
            f"  evidence:  {f.evidence}",
            *(f"  checked:   {c.describe()}" for c in f.checks),
            "",
        ]
    counts = ", ".join(f"{sum(f.kind == k for f in items)} {k}" for k in KINDS)
    out.append(f"{len(items)} finding(s) about the sources ({counts})")
    return "\n".join(out) + "\n"
