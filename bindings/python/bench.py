"""Python's overhead over the same Rust call, and Charm beside abbe.

    target/pyvenv/bin/python bindings/python/bench.py

For N = 1, 10, 100 (flat AND policies, Waters11 on BLS12-381, CCA mode):
the median of `abbe.decrypt` called from Python against the median of the
same Rust function timed inside Rust (abbe._abbe._time_rust_decrypt), and,
when Charm imports, Charm's waters11 (abenc_waters09) and bsw07 decryption
at the same N on its default curve.
"""

from __future__ import annotations

import statistics
import sys
import time

import abbe
from abbe import _abbe

REPS = 51


def paired_times(key: abbe.SecretKey, ct: bytes) -> tuple[list[float], list[float]]:
    """Rust and Python calls alternated, so a busy machine slows both alike."""
    rust, py = [], []
    for _ in range(REPS):
        rust.extend(_abbe._time_rust_decrypt(key, ct, 1))
        t = time.perf_counter()
        abbe.decrypt(key, ct)
        py.append(time.perf_counter() - t)
    return rust, py


def charm_times(n: int) -> str:
    try:
        from charm.toolbox.pairinggroup import GT, PairingGroup  # type: ignore[import-not-found]
        from charm.schemes.abenc.abenc_bsw07 import CPabe_BSW07  # type: ignore[import-not-found]
        from charm.schemes.abenc.abenc_waters09 import CPabe09  # type: ignore[import-not-found]
    except ImportError as e:
        return f"Charm not importable here ({e})"
    group = PairingGroup("SS512")
    attrs = [f"A{i}" for i in range(1, n + 1)]
    policy = " and ".join(attrs)
    res = []
    for name, scheme in [("waters11", CPabe09(group)), ("bsw07", CPabe_BSW07(group))]:
        msk, pk = scheme.setup()
        key = scheme.keygen(pk, msk, attrs)
        m = group.random(GT)
        ct = scheme.encrypt(pk, m, policy)
        t = []
        for _ in range(5):
            s = time.perf_counter()
            scheme.decrypt(pk, key, ct)
            t.append(time.perf_counter() - s)
        res.append(f"{name} {statistics.median(t) * 1e3:.1f} ms")
    return "Charm (SS512): " + ", ".join(res)


def main() -> None:
    print(f"abbe {sys.version.split()[0]}, {REPS} runs per point, medians")
    for n in (1, 10, 100):
        pk, mk = abbe.setup("waters11", level=128)
        attrs = [f"a{i}" for i in range(1, n + 1)]
        key = abbe.keygen(mk, attrs=attrs)
        ct = abbe.encrypt(pk, b"m" * 64, policy=" and ".join(attrs))
        abbe.decrypt(key, ct)  # decodes the key once, as every later call reuses it
        rust_t, py_t = paired_times(key, ct)
        rust, py = statistics.median(rust_t), statistics.median(py_t)
        print(
            f"N = {n:3}: Rust {rust * 1e3:8.3f} ms | Python {py * 1e3:8.3f} ms | overhead {(py / rust - 1) * 100:+5.1f} % | {charm_times(n)}"
        )


if __name__ == "__main__":
    main()
