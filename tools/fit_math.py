#!/usr/bin/env python3
"""Fits the polynomial coefficients in include/tensorops/detail/math-inl.h.

Each approximation is a near-minimax (Chebyshev) fit, done with mpmath at
high precision and then rounded to float; the printed max relative error is
that of the rounded coefficients evaluated in high precision, i.e. the
approximation error alone. Evaluation rounding comes on top and is measured
by tools/ulp_sweep (see README, "Accuracy").

    python3 tools/fit_math.py        # needs python3-mpmath
"""
import mpmath as mp
import struct

mp.mp.dps = 50


def to_float(x):
    return struct.unpack('f', struct.pack('f', float(x)))[0]


def rounded(name, exact, g, scale, lo, hi, center, degree, split0, label):
    """Rounds the coefficients `exact` (lowest order first) of p(t) ~ g(t), t
    in [lo, hi], to float, prints them with the largest |p - g| / scale over
    the interval (the approximation error alone: evaluation rounding comes on
    top) and returns them. split0: the constant term as float hi + lo
    (printed as "c0_lo; c0, c1, ..."), for pieces whose value is dominated by
    it."""
    coeffs = [to_float(c) for c in exact]
    c0_lo = to_float(exact[0] - mp.mpf(coeffs[0])) if split0 else 0.0
    worst = 0
    for i in range(2001):
        t = lo + (hi - lo) * mp.mpf(i) / 2000
        p = mp.mpf(0)
        for c in reversed(coeffs):
            p = p * t + mp.mpf(c)
        s = scale(t)
        if s != 0:
            worst = max(worst, abs((p + mp.mpf(c0_lo) - g(t)) / s))
    print(f"// {name}: degree {degree} on [{float(lo + center):.6g}, {float(hi + center):.6g}]"
          f" in t - {float(center):g}, {label} {float(worst):.3g}")
    print("   " + (f"c0_lo = {c0_lo:.9g}f; " if split0 else "") +
          ", ".join(f"{c:.9g}f" for c in coeffs))
    return coeffs


def fit(name, f, lo, hi, degree, weight=None, center=0, split0=False):
    """Polynomial p of `degree` with p(t - center) ~ f(t) on [lo, hi]: a
    Chebyshev fit, reported against `weight` (default: f itself)."""
    # The kernels subtract the center as a float: fit around that float, or
    # the difference (up to half an ULP of the center) becomes error.
    center = mp.mpf(to_float(center))
    shifted = lambda t: f(t + center)
    lo, hi = lo - center, hi - center
    poly, _ = mp.chebyfit(shifted, [lo, hi], degree + 1, error=True)
    exact = list(reversed(poly))
    scale = (lambda t: weight(t + center)) if weight else shifted
    return rounded(name, exact, shifted, scale, lo, hi, center, degree, split0, "max rel error")


def fit_weighted(name, f, lo, hi, degree, scale, center, split0=False, nodes=200, rounds=25,
                 constant=None):
    """Polynomial p of `degree` with p(t - center) ~ f(t) on [lo, hi] that
    minimises max |p - f| / scale, for errors that reach the result damped by
    a factor that varies over the interval (chebyfit minimises plain |p - f|).
    Lawson's iteration: weighted least squares on Chebyshev nodes, each
    node's weight multiplied by its error until the largest errors level out.
    constant: the constant term, fixed (a float), where its rounding would
    otherwise cost more than the other terms can make up for."""
    center = mp.mpf(to_float(center))
    xs = [(lo + hi) / 2 + (hi - lo) / 2 * mp.cos(mp.pi * (i + mp.mpf(0.5)) / nodes)
          for i in range(nodes)]
    fixed = mp.mpf(constant) if constant is not None else mp.mpf(0)
    first = 0 if constant is None else 1
    n = degree + 1 - first
    fs, ss = [f(x) - fixed for x in xs], [scale(x) for x in xs]
    powers = [[(x - center)**j for j in range(first, degree + 1)] for x in xs]
    w = [mp.mpf(1) / nodes] * nodes
    for _ in range(rounds):
        a = mp.matrix(n, n)
        b = mp.matrix(n, 1)
        for i in range(nodes):
            wi = w[i] / ss[i]**2
            for j in range(n):
                b[j] += wi * powers[i][j] * fs[i]
                for k in range(n):
                    a[j, k] += wi * powers[i][j] * powers[i][k]
        solved = mp.lu_solve(a, b)
        errors = [abs(sum(solved[j] * powers[i][j] for j in range(n)) - fs[i]) / ss[i]
                  for i in range(nodes)]
        total = sum(w[i] * errors[i] for i in range(nodes))
        w = [w[i] * errors[i] / total for i in range(nodes)]
    exact = ([fixed] if constant is not None else []) + [solved[j] for j in range(n)]
    return rounded(name, exact, lambda t: f(t + center), lambda t: scale(t + center),
                   lo - center, hi - center, center, degree, split0, "max weighted error")


def center_near_float(f, lo, hi):
    """A float c within the middle 30% of [lo, hi] whose f(c) is within
    0.002 ULP of a float (or the closest found): a piece's constant term
    f(c) is then stored nearly exactly without a second, low part."""
    mid = struct.unpack('I', struct.pack('f', float((lo + hi) / 2)))[0]
    best = (mp.inf, None)
    for k in range(0, 200000, 7):
        for sign in (1, -1):
            c = struct.unpack('f', struct.pack('I', mid + sign * k))[0]
            if abs(c - (lo + hi) / 2) > (hi - lo) * mp.mpf('0.15'):
                continue
            value = f(mp.mpf(c))
            ulp = mp.mpf(2)**(mp.floor(mp.log(abs(value), 2)) - 23)
            off = abs(value - mp.mpf(to_float(value))) / ulp
            if off < best[0]:
                best = (off, c)
        if best[0] < mp.mpf('0.002'):
            break
    return best[1]


def fit_pieces(name, f, bounds, degree=6):
    """The pieces of a function by pieces (math-inl.h, ErfByPieces): on each
    [lo, hi] of `bounds`, f(c + t) = f(c) + t Q(t) with c from
    center_near_float, Q fitted for f's relative error, which reaches it
    damped by |t|. Prints c and f(c) as floats, then Q."""
    for lo, hi in bounds:
        lo, hi = mp.mpf(lo), mp.mpf(hi)
        c = mp.mpf(center_near_float(f, lo, hi))
        slope = lambda x, c=c: (f(x) - f(c)) / (x - c) if x != c else mp.diff(f, c)
        print(f"// center {float(c):.9g}f, value there {to_float(f(c)):.9g}f")
        fit_weighted(f"{name}: Q on [{lo}, {hi}]", slope, lo, hi, degree,
                     lambda x, c=c: f(x) / max(abs(x - c), mp.mpf('1e-30')), c,
                     nodes=120, rounds=15)


def fit_rational(name, f, c, n, m, nodes=400, rounds=40):
    """x P(x^2) / Q(x^2) ~ f(x) on [0, c] with Q(0) = 1, deg P = n, deg Q = m,
    minimising the largest relative error (the fast tier's tanh and erf).
    Loeb's linearisation, P(s) - g(s) Q(s) = 0 with g(s) = f(x) / x weighted
    by 1 / (g Q_previous), solved by least squares on Chebyshev nodes in
    s = x^2, with Lawson's weights until the largest errors level out."""
    g = lambda s: f(mp.sqrt(s)) / mp.sqrt(s)
    hi = mp.mpf(c)**2
    ss = [hi * (1 - mp.cos(mp.pi * (i + mp.mpf(0.5)) / nodes)) / 2 for i in range(nodes)]
    gs = [g(s) for s in ss]
    q_prev, lawson, best = [mp.mpf(1)] * nodes, [mp.mpf(1)] * nodes, None
    for _ in range(rounds):
        rows, rhs = [], []
        for s, gv, qp, w in zip(ss, gs, q_prev, lawson):
            scale = mp.sqrt(w) / (gv * qp)
            rows.append([scale * s**i for i in range(n + 1)] +
                        [-scale * gv * s**j for j in range(1, m + 1)])
            rhs.append(scale * gv)
        x, _ = mp.qr_solve(mp.matrix(rows), mp.matrix(rhs))
        p = [x[i] for i in range(n + 1)]
        q = [mp.mpf(1)] + [x[n + 1 + j] for j in range(m)]
        q_prev = [sum(c * s**i for i, c in enumerate(q)) for s in ss]
        errors = [abs(sum(c * s**i for i, c in enumerate(p)) / qv / gv - 1)
                  for s, qv, gv in zip(ss, q_prev, gs)]
        if best is None or max(errors) < best[0]:
            best = (max(errors), p, q)
        total = sum(w * e for w, e in zip(lawson, errors))
        lawson = [w * e / total * nodes for w, e in zip(lawson, errors)]
    pf, qf = [to_float(v) for v in best[1]], [to_float(v) for v in best[2]]
    print(f"// {name}: x P(x^2) / Q(x^2), degrees {n} and {m}, on [0, {c}]: max rel error "
          f"{float(best[0]):.3g} (before rounding the coefficients)")
    print("   P: " + ", ".join(f"{v:.9g}f" for v in pf))
    print("   Q: " + ", ".join(f"{v:.9g}f" for v in qf))
    return pf, qf


def saturation_clamp(name, f, p, q, lo, hi):
    """The first float c in [lo, hi] where the rational of fit_rational,
    evaluated in float as the kernel does (Horner, then x P, then the
    quotient), is exactly 1 both with and without fused multiply-add, and f(c)
    is within 0.55 ULP of 1: the clamp that makes +-Inf give +-1."""
    def horner(c, s, fused):
        acc = c[-1]
        for k in reversed(c[:-1]):
            acc = to_float(acc * s + k) if fused else to_float(to_float(acc * s) + k)
        return acc
    bits = struct.unpack('I', struct.pack('f', lo))[0]
    while True:
        x = struct.unpack('f', struct.pack('I', bits))[0]
        if x > hi:
            print(f"// {name}: no clamp in [{lo}, {hi}]")
            return None
        s = to_float(x * x)
        if (1 - f(mp.mpf(x)) < mp.mpf('0.55') * mp.mpf(2)**-24 and
                all(to_float(to_float(x * horner(p, s, fused)) / horner(q, s, fused)) == 1.0
                    for fused in (True, False))):
            print(f"// {name}: clamp at {x:.9g}f")
            return x
        bits += 1


def main():
    # exp(r) = 1 + r + r^2 P(r) on |r| <= ln2/2, with a little slack for the
    # rounding of r (k comes from hi + lo, so a low part does not widen it).
    h = mp.mpf('0.35')
    # Degree 4 (kP6) for exp itself and sigmoid/tanh, degree 5 (kP7) where
    # GELU multiplies exp by a second approximation: chosen by the sweep.
    for degree in (4, 5):
        fit("exp: P(r) = (exp(r)-1-r)/r^2", lambda r: (mp.exp(r) - 1 - r) / r**2 if r else mp.mpf(0.5),
            -h, h, degree, weight=lambda r: (mp.exp(r)) / max(r * r, mp.mpf('1e-30')))
    # exp by a table of eight entries (math-inl.h, ExpByTable):
    # exp(r) = 1 + r U(r) on |r| <= ln2/16 (slack for the rounding of k);
    # U's error reaches exp scaled by |r| / exp(r). Degree 2 (kExpTableU2) and
    # 3 (kExpTableU3).
    h = mp.log(2) / 16 * mp.mpf('1.02')
    for degree in (2, 3):
        fit_weighted("exp by table: U(r) = (exp(r)-1)/r",
                     lambda r: mp.expm1(r) / r if r else mp.mpf(1), -h, h, degree,
                     lambda r: mp.exp(r) / max(abs(r), mp.mpf('1e-30')), mp.mpf(0),
                     nodes=120, rounds=30)
    # The table: T_j = 2^(j/8) rounded to float, printed as its bits less
    # j << 20 (kExp2EighthsBits), and T_j's relative error (kExp2EighthsLow).
    bits, lows = [], []
    for j in range(8):
        t = mp.mpf(2)**(mp.mpf(j) / 8)
        rounded_t = to_float(t)
        bits.append(struct.unpack('I', struct.pack('f', rounded_t))[0] - (j << 20))
        lows.append(to_float((t - mp.mpf(rounded_t)) / mp.mpf(rounded_t)))
    print("// exp table: T_j's bits less j << 20, then (2^(j/8) - T_j) / T_j")
    print("   " + ", ".join(f"{b:#010x}u" for b in bits))
    print("   " + ", ".join(f"{c:.9g}f" for c in lows))
    # log(m) = 2s + s^3 Q(s^2), s = (m-1)/(m+1), m in [sqrt(.5), sqrt(2)].
    smax = (mp.sqrt(2) - 1) / (mp.sqrt(2) + 1)
    fit("log: Q(u) = (log((1+s)/(1-s)) - 2s)/s^3, u = s^2",
        lambda u: (mp.log((1 + mp.sqrt(u)) / (1 - mp.sqrt(u))) - 2 * mp.sqrt(u)) / mp.sqrt(u)**3
        if u else mp.mpf(2) / 3, 0, smax**2 * mp.mpf('1.01'), 3)
    # tanh(x) = x + x^3 T(x^2) for |x| < 0.625.
    # T's error reaches tanh as x^3 dT / tanh(x).
    fit_weighted("tanh: T(u) = (tanh(x)-x)/x^3, u = x^2",
                 lambda u: (mp.tanh(mp.sqrt(u)) - mp.sqrt(u)) / mp.sqrt(u)**3 if u else mp.mpf(-1) / 3,
                 mp.mpf('1e-6'), mp.mpf('0.625')**2, 4,
                 lambda u: mp.tanh(mp.sqrt(u)) / mp.sqrt(u)**3, mp.mpf(0))
    # erf(x) = x + x E(x^2) for |x| < 0.8: the 1 is exact, so the rounding of
    # E's constant term (2/sqrt(pi) - 1) weighs 8x less than 2/sqrt(pi)'s would.
    E = lambda u: mp.erf(mp.sqrt(u)) / mp.sqrt(u) if u else 2 / mp.sqrt(mp.pi)
    fit_weighted("erf: E(u) = erf(x)/x - 1, u = x^2", lambda u: E(u) - 1, mp.mpf(0),
                 mp.mpf('0.8')**2, 5, E, mp.mpf(0))
    # erf(|x|) with |x| clamped at 3.921875 (ErfByPieces): one polynomial with
    # per-lane coefficients. Piece 0 is the E above (a < 0.75); pieces 1-7
    # split [0.75, 4.25) into halves (the piece is round(2a) - 1) and hold
    # erf(c + t) = erf(c) + t Q(t), with c a float whose erf is nearly a
    # float, and Q fitted for the result's error (damped by |t|), degree 5 as E.
    fit_pieces("erf by pieces", mp.erf,
               [('0.75', '1.25'), ('1.25', '1.75'), ('1.75', '2.25'), ('2.25', '2.75'),
                ('2.75', '3.25'), ('3.25', '3.75'), ('3.75', '3.921875')], degree=5)
    # GELU (erf form) in x itself, so that x / sqrt(2) is never rounded.
    # |x| < 0.665: gelu = x/2 + (x^2/2) F(x^2), F(u) = erf(x/sqrt2)/x.
    # F's error reaches the result as (x^2/2) dF / (x Phi(x)), worst for x < 0.
    Phi = lambda x: mp.erfc(-x / mp.sqrt(2)) / 2
    F = lambda u: mp.erf(mp.sqrt(u / 2)) / mp.sqrt(u) if u else mp.sqrt(2 / mp.pi)
    F_weight = lambda u: 2 * Phi(-mp.sqrt(u)) / mp.sqrt(u)
    fit_weighted("gelu: F(u) = erf(x/sqrt2)/x, u = x^2", F, mp.mpf('1e-6'), mp.mpf('0.665')**2, 5,
                 F_weight, mp.mpf(0), constant=to_float(mp.sqrt(2 / mp.pi)))
    # a = |x| >= 0.665: (a/2) erfc(a/sqrt2) = exp(-a^2/2) H(a).
    H = lambda a: a / 2 * mp.erfc(a / mp.sqrt(2)) * mp.exp(a * a / 2)
    # Relative error: on the left the tail is the result (GeluTailH).
    fit("gelu: H(a) on [0.66, 1.4]", H, mp.mpf('0.66'), mp.mpf('1.4'), 9, center=mp.mpf('1.03'),
        split0=True)
    fit("gelu: H(a) on [1.4, 2.83]", H, mp.mpf('1.4'), mp.mpf('2.83'), 10, center=mp.mpf('2.1'),
        split0=True)
    fit("gelu: H(a) = G(1/a), a in [2.83, 20]", lambda t: H(1 / t), 1 / mp.mpf(20), 1 / mp.mpf('2.83'),
        10, center=mp.mpf('0.2'))
    # Vectors with every |x| < 13 (GeluByPieces): x Phi(x) = max(x, 0) - T(a),
    # T(a) = (a/2) erfc(a/sqrt2), one polynomial with per-lane coefficients.
    # Piece 0 (a < 0.75): T = a/2 + a^2 Q(a^2), Q = -F/2 with F as GeluMiddle's
    # but to 0.75 (degree 6); the kernel's table holds Q, printed after F (exact).
    F_piece = fit_weighted("gelu by pieces: F(u) = erf(x/sqrt2)/x, u = x^2 < 0.75^2", F,
                           mp.mpf('1e-6'), mp.mpf('0.75')**2, 6, F_weight, mp.mpf(0),
                           constant=to_float(mp.sqrt(2 / mp.pi)))
    print("   piece 0's Q = -F/2: " + ", ".join(f"{-c / 2:.9g}f" for c in F_piece))
    # Pieces 1-6 split [0.75, 6) where a's exponent or first mantissa bit
    # changes: T = exp(-a^2/2) H(a), H(c + t) = H(c) + t Q(t), c a float
    # whose H is nearly a float, Q fitted for H's relative error (the left
    # tail's), damped by |t|. Piece 7, a in [6, 13.5): the same in w = 1/a.
    fit_pieces("gelu by pieces, H", H, [('0.75', '1'), ('1', '1.5'), ('1.5', '2'), ('2', '3'),
                                        ('3', '4'), ('4', '6')])
    fit_pieces("gelu by pieces, H(1/w)", lambda w: H(1 / w), [(1 / mp.mpf('13.5'), 1 / mp.mpf(6))])
    # sin(r) = r + r^3 S(r^2), cos(r) = 1 - r^2/2 + r^4 C(r^2), |r| <= pi/4.
    q = (mp.pi / 4)**2 * mp.mpf('1.01')
    fit("sin: S(u) = (sin(r)-r)/r^3", lambda u: (mp.sin(mp.sqrt(u)) - mp.sqrt(u)) / mp.sqrt(u)**3
        if u else mp.mpf(-1) / 6, 0, q, 3)
    fit("cos: C(u) = (cos(r)-1+r^2/2)/r^4", lambda u: (mp.cos(mp.sqrt(u)) - 1 + u / 2) / u**2
        if u else mp.mpf(1) / 24, 0, q, 3)
    # The fast tier (Accuracy::kFast).
    fit_weighted("fast exp: exp(r), exp(0) = 1 exact", mp.exp, -mp.log(2) / 2, mp.log(2) / 2, 5,
                 mp.exp, 0, constant=1.0, rounds=80)
    p, q = fit_rational("fast tanh", mp.tanh, 9.0, 4, 4)
    saturation_clamp("fast tanh", mp.tanh, p, q, 9.0, 9.2)
    p, q = fit_rational("fast erf", mp.erf, 3.93, 4, 5)
    saturation_clamp("fast erf", mp.erf, p, q, 3.86, 3.99)
    # GELU's erf(x / sqrt2), fitted in x; the header holds P halved (exact).
    erf_scaled = lambda x: mp.erf(x / mp.sqrt(2))
    # 300 nodes: these coefficients, once rounded, keep the left tail's
    # absolute error at 9e-7 over all floats (400 nodes' reach 1.1e-6).
    p, q = fit_rational("fast GELU's erf(x/sqrt2)", erf_scaled, mp.mpf('3.93') * mp.sqrt(2), 5, 5,
                        nodes=300)
    saturation_clamp("fast GELU's erf(x/sqrt2)", erf_scaled, p, q, 5.45, 5.65)
    print("   P / 2: " + ", ".join(f"{to_float(v / 2):.9g}f" for v in p))


if __name__ == "__main__":
    main()
