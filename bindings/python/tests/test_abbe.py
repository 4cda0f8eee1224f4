"""Tests of `import abbe`: round trips on every scheme, the typed errors,
streams, outsourcing, signatures, armor and passphrases, and interop with
the `abbe` binary (ABBE_BIN)."""

from __future__ import annotations

import io
import os
import subprocess
import threading
from pathlib import Path

import pytest

import abbe

# The library's table: a scheme added there is tested here by its family and
# sides, or fails `test_every_scheme_round_trips` for a side it does not know.
SCHEMES = [s for s in abbe.schemes() if not s["insecure"]]
ABE_CP = [s["name"] for s in SCHEMES if s["family"] == "CP-ABE" and not s["setup"]]
ABE_KP = [s["name"] for s in SCHEMES if s["family"] == "KP-ABE" and not s["setup"]]
BROADCAST = [s["name"] for s in SCHEMES if s["ciphertext"] == "users" and 100 in s["levels"]]
IBBE = [s["name"] for s in SCHEMES if s["family"] == "identity-based broadcast"]
LEVELS = [100, 128, 192, 256]


def test_the_table_lists_every_family() -> None:
    names = [s["name"] for s in SCHEMES]
    assert len(names) == len(set(names))
    assert {"waters11", "gpsw06-small", "elgamal-p256", "gksw10-plbe", "gw19-ibbe"} <= set(names)
    assert ABE_CP and ABE_KP and BROADCAST and IBBE
    waters11 = next(s for s in SCHEMES if s["name"] == "waters11")
    assert waters11["levels"] == LEVELS and waters11["outsourcing"]
    assert (waters11["key"], waters11["ciphertext"]) == ("attributes", "policy")
    zha20 = next(s for s in SCHEMES if s["name"] == "zha20")
    assert zha20["setup"] == ["users", "expansion"] and zha20["tracing"]


# What each side takes: (keygen or encrypt keywords that match, ones that do not).
KEY_SIDES: dict[str, tuple[dict[str, object], dict[str, object]]] = {
    "attributes": ({"attrs": ["a", "b"]}, {"attrs": ["c"]}),
    "policy": ({"policy": "a and b"}, {"policy": "a and c"}),
    "user": ({"user": 3}, {"user": 12}),
    "identity": ({"identity": "alice"}, {"identity": "eve"}),
}
CIPHERTEXT_SIDES: dict[str, dict[str, object]] = {
    "attributes": {"attrs": ["a", "b"]},
    "policy": {"policy": "a and b"},
    "users": {"to": "1-5, 9"},
    "everyone": {},
    "identities": {"to_identities": ["bob", "alice"]},
}
SETUP: dict[str, object] = {"users": 16, "universe": ["a", "b", "c"], "max_recipients": 4, "expansion": 0.5}


@pytest.mark.parametrize("scheme", [s["name"] for s in SCHEMES])
def test_every_scheme_round_trips(scheme: str) -> None:
    s = next(s for s in SCHEMES if s["name"] == scheme)
    pk, mk = abbe.setup(scheme, level=min(s["levels"]), **{p: SETUP[p] for p in s["setup"]})  # type: ignore[arg-type]
    (good, bad), enc = KEY_SIDES[s["key"]], CIPHERTEXT_SIDES[s["ciphertext"]]
    public = {"public": pk} if s["family"] == "broadcast" else {}
    key = abbe.keygen(mk, **good, **public)  # type: ignore[arg-type]
    ct = abbe.encrypt(pk, b"per scheme", **enc)  # type: ignore[arg-type]
    opened = {"public": pk} if s["family"].endswith("broadcast") else {}
    assert abbe.decrypt(key, ct, **opened) == b"per scheme"  # type: ignore[arg-type]
    if s["ciphertext"] != "everyone":
        outsider = abbe.keygen(mk, **bad, **public)  # type: ignore[arg-type]
        with pytest.raises(abbe.NotSatisfied):
            abbe.decrypt(outsider, ct, **opened)  # type: ignore[arg-type]


def keys_and_targets(scheme: str, level: int) -> tuple[bytes, abbe.SecretKey, dict[str, object], dict[str, object]]:
    """A setup, a key, and (keygen, encrypt) keyword arguments that match."""
    # A numeric comparison expands to many leaves: at the slow high levels
    # the round trip uses plain attributes.
    attrs = ["doctor", "age = 42"] if level <= 128 else ["doctor", "cardiology"]
    policy = "doctor and age >= 18" if level <= 128 else "doctor and cardiology"
    if scheme in ABE_CP:
        pk, mk = abbe.setup(scheme, level=level)
        return pk, mk, {"attrs": attrs}, {"policy": policy}
    if scheme in ABE_KP:
        pk, mk = abbe.setup(scheme, level=level)
        return pk, mk, {"policy": policy}, {"attrs": attrs}
    pk, mk = abbe.setup(scheme, level=level, users=16)
    return pk, mk, {"user": 3, "public": pk}, {"to": "1-5, 9"}


@pytest.mark.parametrize("scheme", ABE_CP + ABE_KP)
@pytest.mark.parametrize("level", LEVELS)
def test_abe_round_trip_on_every_level(scheme: str, level: int) -> None:
    pk, mk, kg, enc = keys_and_targets(scheme, level)
    key = abbe.keygen(mk, **kg)  # type: ignore[arg-type]
    ct = abbe.encrypt(pk, b"patient record", **enc)  # type: ignore[arg-type]
    assert abbe.decrypt(key, ct) == b"patient record"


def test_placement_is_chosen_at_setup_and_bound_to_every_object() -> None:
    pk, mk = abbe.setup("waters11", optimize="encrypt")
    assert str(abbe.inspect(pk)["placement"]).startswith("swapped")
    key = abbe.keygen(mk, attrs=["doctor"])
    ct = abbe.encrypt(pk, b"vitals", policy="doctor")
    assert abbe.decrypt(key, ct) == b"vitals"
    # A key of the standard placement does not open it, and says why.
    pk2, mk2 = abbe.setup("waters11", optimize="decrypt")
    assert str(abbe.inspect(pk2)["placement"]).startswith("standard")
    with pytest.raises(abbe.Error, match="swapped placement"):
        abbe.decrypt(abbe.keygen(mk2, attrs=["doctor"]), ct)
    with pytest.raises(abbe.InvalidInput, match="optimize or placement"):
        abbe.setup("waters11", optimize="encrypt", placement="swapped")
    with pytest.raises(abbe.InvalidInput, match="expected decrypt or encrypt"):
        abbe.setup("waters11", optimize="speed")


@pytest.mark.parametrize("scheme", BROADCAST)
@pytest.mark.parametrize("level", [100, 128])
def test_broadcast_round_trip_and_an_outsider(scheme: str, level: int) -> None:
    pk, mk, kg, enc = keys_and_targets(scheme, level)
    key = abbe.keygen(mk, **kg)  # type: ignore[arg-type]
    ct = abbe.encrypt(pk, b"frame", **enc)  # type: ignore[arg-type]
    # Broadcast keys do not carry their O(N) public key: decryption takes it.
    with pytest.raises(abbe.InvalidInput, match="public key"):
        abbe.decrypt(key, ct)
    assert abbe.decrypt(key, ct, public=pk) == b"frame"
    assert abbe.decrypt(bytes(key), ct, public=pk) == b"frame"
    assert len(bytes(key)) < len(pk)
    outsider = abbe.keygen(mk, user=12, public=pk)
    with pytest.raises(abbe.NotSatisfied):
        abbe.decrypt(outsider, ct, public=pk)
    other_pk, _ = abbe.setup(scheme, level=level, users=16)
    with pytest.raises(abbe.InvalidInput):
        abbe.decrypt(bytes(key), ct, public=other_pk)


@pytest.mark.parametrize("scheme", IBBE)
def test_identity_based_broadcast(scheme: str) -> None:
    pk, mk = abbe.setup(scheme, level=100, max_recipients=4)
    alice = abbe.keygen(mk, identity="alice@example.com")
    eve = abbe.keygen(mk, identity="eve")
    ct = abbe.encrypt(pk, b"memo", to_identities=["bob", "alice@example.com"])
    assert abbe.decrypt(alice, ct, public=pk) == b"memo"
    with pytest.raises(abbe.NotSatisfied):
        abbe.decrypt(eve, ct, public=pk)
    with pytest.raises(abbe.InvalidInput):
        abbe.encrypt(pk, b"m", to_identities=["a", "b", "c", "d", "e"])  # over ℓ
    with pytest.raises(abbe.InvalidInput):
        abbe.keygen(mk, user=3)  # identity-based keys take identity=


def test_traitor_tracing_scheme_encrypts_to_everyone() -> None:
    pk, mk = abbe.setup("gksw10-plbe", level=100, users=9)
    key = abbe.keygen(mk, user=4, public=pk)
    ct = abbe.encrypt(pk, b"show")  # every user; CPA mode is the default
    assert abbe.decrypt(key, ct, public=pk) == b"show"
    with pytest.raises(abbe.Error):
        abbe.encrypt(pk, b"show", mode="cca")  # tracing ciphertexts are CPA-only
    with pytest.raises(abbe.InvalidInput):
        abbe.encrypt(abbe.setup(level=100)[0], b"m")  # a policy scheme needs policy=


def test_trace_names_a_colluder_of_a_python_decoder() -> None:
    pk, mk = abbe.setup("gksw10-plbe", level=100, users=16)
    keys = [abbe.keygen(mk, user=u, public=pk) for u in (5, 11)]
    calls = []

    def pirate(ct: bytes) -> bytes | None:
        calls.append(1)
        try:
            return abbe.decrypt(keys[len(calls) % 2], ct, public=pk)
        except abbe.Error:
            return None

    report = abbe.trace(pk, pirate, master=mk)
    assert report["verdict"] == "accused" and report["accused"] in (5, 11)
    assert report["queries"] == len(calls) and report["evidence"]
    with pytest.raises(abbe.Error, match="master key"):
        abbe.trace(pk, pirate)  # PLBE traces privately

    def broken(ct: bytes) -> bytes:
        raise RuntimeError("the box is on fire")

    with pytest.raises(RuntimeError, match="on fire"):
        abbe.trace(pk, broken, master=mk)


@pytest.mark.parametrize("scheme", ["waters11", "fabeo-kp"])
def test_an_expired_key_refuses_newer_files(scheme: str) -> None:
    pk, mk = abbe.setup(scheme)
    cp = scheme == "waters11"
    side: dict[str, object] = {"attrs": ["doctor"]} if cp else {"policy": "doctor"}
    target: dict[str, object] = {"policy": "doctor"} if cp else {"attrs": ["doctor"]}
    expired = abbe.keygen(mk, valid_until="2026-01-31", **side)  # type: ignore[arg-type]
    never = abbe.keygen(mk, **side)  # type: ignore[arg-type]
    today = abbe.encrypt(pk, b"x", **target)  # type: ignore[arg-type]
    with pytest.raises(abbe.NotSatisfied, match="expired"):
        abbe.decrypt(expired, today)
    assert abbe.decrypt(never, today) == b"x"
    for extra in ({"as_of": "2026-01-31"}, {"no_expiry": True}):
        old = abbe.encrypt(pk, b"y", **target, **extra)  # type: ignore[arg-type]
        assert abbe.decrypt(expired, old) == b"y"
    out = io.BytesIO()
    abbe.encrypt_stream(pk, io.BytesIO(b"z"), out, no_expiry=True, **target)  # type: ignore[arg-type]
    assert abbe.decrypt(expired, out.getvalue()) == b"z"
    with pytest.raises(abbe.InvalidInput, match="YYYY-MM-DD"):
        abbe.keygen(mk, valid_until="2026-02-30", **side)  # type: ignore[arg-type]
    with pytest.raises(abbe.InvalidInput):
        abbe.encrypt(pk, b"x", no_expiry=True, as_of="2026-01-01", **target)  # type: ignore[arg-type]


def test_small_universe_gpsw06() -> None:
    pk, mk = abbe.setup("gpsw06-small", level=100, universe=["a", "b", "c"])
    key = abbe.keygen(mk, policy="a and (b or c)")
    assert abbe.decrypt(key, abbe.encrypt(pk, b"m", attrs=["a", "c"])) == b"m"
    with pytest.raises(abbe.InvalidInput):
        abbe.encrypt(pk, b"m", attrs=["a", "z"])  # outside the universe


def test_each_scheme_takes_only_its_own_side_argument() -> None:
    pk, mk = abbe.setup(level=100)  # waters11: ciphertexts for policies
    with pytest.raises(abbe.InvalidInput, match=r"made with policy=.*nothing else"):
        abbe.encrypt(pk, b"m", attrs=["doctor"])  # a list of attributes is no policy
    with pytest.raises(abbe.InvalidInput, match=r"keys are made with attrs="):
        abbe.keygen(mk, policy="doctor")
    kp, _ = abbe.setup(scheme="gpsw06", level=100)
    with pytest.raises(abbe.InvalidInput, match=r"made with attrs="):
        abbe.encrypt(kp, b"m", policy="doctor")


def test_every_object_only_in_its_role() -> None:
    pk, mk = abbe.setup(level=100)
    key = abbe.keygen(mk, attrs=["doctor"])
    ct = abbe.encrypt(pk, b"m", policy="doctor")
    with pytest.raises(abbe.InvalidInput):
        abbe.decrypt(mk, ct)  # a master key is not a user key
    with pytest.raises(abbe.Error):
        abbe.keygen(key, attrs=["doctor"])  # nor is a user key a master key
    with pytest.raises(abbe.InvalidInput):
        abbe.encrypt(bytes(key), b"m", policy="doctor")  # a secret is not a public key
    other_pk, _ = abbe.setup(level=128)
    with pytest.raises(abbe.InvalidInput):
        abbe.decrypt(key, abbe.encrypt(other_pk, b"m", policy="doctor"))


def test_elgamal_baseline() -> None:
    pk, mk = abbe.setup("elgamal-p256", users=8)
    key = abbe.keygen(mk, user=2, public=pk)
    assert abbe.decrypt(key, abbe.encrypt(pk, b"x", to="1-3"), public=pk) == b"x"


def test_unsatisfied_and_corrupt_inputs_raise_typed_errors() -> None:
    pk, mk = abbe.setup(level=100)
    nurse = abbe.keygen(mk, attrs=["nurse"])
    ct = abbe.encrypt(pk, b"secret", policy="doctor")
    with pytest.raises(abbe.NotSatisfied):
        abbe.decrypt(nurse, ct)
    doctor = abbe.keygen(mk, attrs=["doctor"])
    corrupt = bytearray(ct)
    corrupt[-5] ^= 1
    with pytest.raises(abbe.InvalidInput):
        abbe.decrypt(doctor, bytes(corrupt))
    with pytest.raises(abbe.InvalidInput):
        abbe.decrypt(doctor, b"\x00" * 40)
    with pytest.raises(abbe.InvalidInput):
        abbe.encrypt(pk, b"x", policy="doctor and (")
    with pytest.raises(abbe.InvalidInput):
        abbe.keygen(mk, policy="doctor")  # a CP scheme's keys take attributes
    with pytest.raises(abbe.Error):
        abbe.setup("yct14")
    assert issubclass(abbe.NotSatisfied, abbe.Error)
    assert issubclass(abbe.InvalidInput, abbe.Error)


def test_secret_keys_do_not_show_their_bytes() -> None:
    _, mk = abbe.setup(level=100)
    text = repr(mk)
    assert "master key" in text and "waters11" in text
    raw = bytes(mk)
    assert raw.hex()[-32:] not in text
    again = abbe.SecretKey(raw)
    assert again.kind == mk.kind and again.scheme == "waters11" and again.curve == "bn254"


def test_streams_round_trip_in_chunks() -> None:
    pk, mk = abbe.setup(level=100)
    key = abbe.keygen(mk, attrs=["doctor"])
    data = os.urandom(3 * 65536 + 17)
    enc = io.BytesIO()
    assert abbe.encrypt_stream(pk, io.BytesIO(data), enc, policy="doctor") == len(data)
    dec = io.BytesIO()
    assert abbe.decrypt_stream(key, io.BytesIO(enc.getvalue()), dec) == len(data)
    assert dec.getvalue() == data
    # The same bytes as the in-memory API produces and reads.
    assert abbe.decrypt(key, enc.getvalue()) == data


def test_outsourced_decryption_through_a_transformation() -> None:
    pk, mk = abbe.setup(level=100)
    key = abbe.keygen(mk, attrs=["doctor"])
    tk, rk = abbe.transform_key(key)
    ct = abbe.encrypt(pk, b"lab results", policy="doctor", mode="rcca")
    transformed = abbe.transform(tk, ct)
    assert abbe.decrypt(rk, transformed, original=ct) == b"lab results"
    header_id = abbe.inspect(ct)["header_id"]
    assert isinstance(header_id, str)
    assert abbe.decrypt(rk, transformed, expect_header=header_id) == b"lab results"
    # A proxy's substitute: anyone with the public key can make one, and it
    # is refused unless the check is waived.
    other = abbe.transform(tk, abbe.encrypt(pk, b"chosen", policy="doctor", mode="rcca"))
    with pytest.raises(abbe.Error, match="which ciphertext"):
        abbe.decrypt(rk, other)
    with pytest.raises(abbe.Error, match="header id"):
        abbe.decrypt(rk, other, original=ct)
    with pytest.raises(abbe.Error, match="header id"):
        abbe.decrypt_stream(rk, io.BytesIO(other), io.BytesIO(), original=ct)
    assert abbe.decrypt(rk, other, any_original=True) == b"chosen"
    # A CCA ciphertext is not outsourceable.
    with pytest.raises(abbe.Error):
        abbe.transform(tk, abbe.encrypt(pk, b"x", policy="doctor"))


def test_signed_ciphertexts_verify_and_a_foreign_signer_is_refused() -> None:
    pk, mk = abbe.setup(level=100)
    key = abbe.keygen(mk, attrs=["doctor"])
    sk, vk = abbe.signer_keygen(level=100)
    _, other_vk = abbe.signer_keygen(level=100)
    ct = abbe.encrypt(pk, b"signed", policy="doctor", sign_with=sk)
    assert abbe.decrypt(key, ct, verify_with=vk) == b"signed"
    with pytest.raises(abbe.InvalidInput):
        abbe.decrypt(key, ct, verify_with=other_vk)
    unsigned = abbe.encrypt(pk, b"unsigned", policy="doctor")
    with pytest.raises(abbe.InvalidInput):
        abbe.decrypt(key, unsigned, verify_with=vk)


def test_armor_and_passphrases() -> None:
    pk, mk = abbe.setup(level=100)
    key = abbe.keygen(mk, attrs=["doctor"])
    ct = abbe.encrypt(pk, b"x", policy="doctor")
    armored = abbe.armor(key)
    assert armored.startswith(b"-----BEGIN ABBE")
    assert abbe.decrypt(armored, ct) == b"x"
    locked = abbe.protect(key, "correct horse")
    with pytest.raises(abbe.InvalidInput):
        abbe.decrypt(locked, ct)
    with pytest.raises(abbe.InvalidInput):
        abbe.decrypt(locked, ct, passphrase="wrong")
    assert abbe.decrypt(locked, ct, passphrase="correct horse") == b"x"
    assert "passphrase" in str(abbe.inspect(locked)["protection"])


def test_armored_input_is_read_everywhere() -> None:
    pk, mk = abbe.setup(level=100)
    key = abbe.keygen(mk, attrs=["doctor"])
    ct = abbe.encrypt(abbe.armor(pk), b"armored", policy="doctor", mode="rcca")
    text = abbe.armor(ct)
    assert text.startswith(b"-----BEGIN ABBE ENCRYPTED FILE-----")
    assert abbe.dearmor(text) == ct
    assert abbe.decrypt(key, text) == b"armored"
    tk, rk = abbe.transform_key(key)
    t = abbe.transform(abbe.armor(tk), text)
    assert abbe.decrypt(rk, abbe.armor(t), original=text) == b"armored"
    damaged = text.replace(b"\n", b"\n!", 1)
    with pytest.raises(abbe.InvalidInput):
        abbe.decrypt(key, damaged)
    assert isinstance(abbe.__version__, str) and abbe.__version__.count(".") == 2


def test_errors_name_keyword_arguments_not_flags() -> None:
    pk, mk = abbe.setup(level=100)
    tk, _ = abbe.transform_key(abbe.keygen(mk, attrs=["doctor"]))
    cca = abbe.encrypt(pk, b"m", policy="doctor")
    with pytest.raises(abbe.Error) as refused:
        abbe.transform(tk, cca)
    assert 'mode="rcca"' in str(refused.value) and "--" not in str(refused.value)


def test_policy_attributes_include_numeric_ones() -> None:
    assert abbe.Policy("doctor and (age >= 30 or ward25)").attributes == ["doctor", "age", "ward25"]


def test_help_lists_the_arguments_and_modes() -> None:
    doc = abbe.encrypt.__doc__ or ""
    for word in ["policy", "attrs", "to_identities", '"cca"', '"rcca"', '"cpa"', "sign_with"]:
        assert word in doc, word
    assert '"rcca"' in (abbe.encrypt_stream.__doc__ or "")


def test_inspect_describes_without_secrets() -> None:
    pk, mk = abbe.setup(level=100)
    info = abbe.inspect(pk)
    assert info["scheme"] == "waters11" and info["level"] == 100
    ct = abbe.encrypt(pk, b"hello", policy="doctor", mode="rcca")
    info = abbe.inspect(ct)
    # Values, not display strings: 5 plaintext bytes and one 16-byte tag.
    assert info["payload"] == 21 and info["signed"] is False
    assert len(str(info["header_id"])) == 64
    assert "secret" in str(abbe.inspect(mk)["note"])


def test_policy_parser() -> None:
    p = abbe.Policy("doctor and (cardiology or 2 of (a, b, c)) and age >= 30")
    assert set(p.attributes) >= {"doctor", "cardiology", "a", "b", "c"}
    assert p.satisfied_by(["doctor", "cardiology", "age = 31"])
    assert not p.satisfied_by(["doctor", "a", "age = 31"])
    assert p.satisfied_by(["doctor", "a", "b", "age = 40"])
    assert "doctor" in str(p) and repr(p).startswith("abbe.Policy(")
    with pytest.raises(abbe.InvalidInput):
        abbe.Policy("doctor and")


def test_many_threads_decrypt_at_once() -> None:
    pk, mk = abbe.setup(level=100)
    key = abbe.keygen(mk, attrs=["doctor"])
    cts = [abbe.encrypt(pk, bytes([i]) * 100, policy="doctor") for i in range(16)]
    results: list[bytes] = [b""] * len(cts)

    def work(i: int) -> None:
        results[i] = abbe.decrypt(key, cts[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(cts))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [bytes([i]) * 100 for i in range(16)]


def abbe_bin() -> str:
    path = os.environ.get("ABBE_BIN", "target/release/abbe")
    if not Path(path).exists():
        pytest.skip(f"no abbe binary at {path} (cargo build --release -p abbe-cli)")
    return path


def test_interop_with_the_binary_both_ways(tmp_path: Path) -> None:
    bin_ = abbe_bin()
    # Python writes keys and a ciphertext; the CLI decrypts.
    pk, mk = abbe.setup(level=100)
    key = abbe.keygen(mk, attrs=["doctor"])
    (tmp_path / "alice.key").write_bytes(bytes(key))
    (tmp_path / "py.abbe").write_bytes(abbe.encrypt(pk, b"from python", policy="doctor"))
    subprocess.run(
        [bin_, "decrypt", "--key", str(tmp_path / "alice.key"), str(tmp_path / "py.abbe"), "-o", str(tmp_path / "out.txt")],
        check=True,
        capture_output=True,
    )
    assert (tmp_path / "out.txt").read_bytes() == b"from python"
    # The CLI encrypts; Python decrypts.
    (tmp_path / "public.key").write_bytes(pk)
    (tmp_path / "in.txt").write_bytes(b"from the cli")
    subprocess.run(
        [
            bin_,
            "encrypt",
            "--public",
            str(tmp_path / "public.key"),
            "--policy",
            "doctor",
            str(tmp_path / "in.txt"),
            "-o",
            str(tmp_path / "cli.abbe"),
        ],
        check=True,
        capture_output=True,
    )
    assert abbe.decrypt(key, (tmp_path / "cli.abbe").read_bytes()) == b"from the cli"


def test_the_proxy_client_against_a_real_proxy(tmp_path: Path) -> None:
    bin_ = abbe_bin()
    token = subprocess.run(
        [bin_, "proxy", "token", "create", "--store", "sqlite:proxy.db"],
        cwd=tmp_path,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    server = subprocess.Popen(
        [bin_, "proxy", "serve", "--listen", "127.0.0.1:0", "--store", "sqlite:proxy.db"],
        cwd=tmp_path,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stderr is not None
        line = server.stderr.readline()
        url = next(w for w in line.split() if w.startswith("http://"))
        pk, mk = abbe.setup(level=100)
        key = abbe.keygen(mk, attrs=["doctor"])
        tk, rk = abbe.transform_key(key)
        client = abbe.ProxyClient(url, token)
        tk_id = client.register(tk)
        ct = abbe.encrypt(pk, b"through the proxy", policy="doctor", mode="rcca")
        assert abbe.decrypt(rk, client.transform(tk_id, ct), original=ct) == b"through the proxy"
        assert client.decrypt(rk, tk_id, ct) == b"through the proxy"
        # A policy the key does not satisfy: the proxy says so.
        other = abbe.encrypt(pk, b"x", policy="surgeon", mode="rcca")
        with pytest.raises(abbe.NotSatisfied):
            client.transform(tk_id, other)
        with pytest.raises(abbe.Error):
            abbe.ProxyClient(url, "not-a-token").register(tk)
        client.delete(tk_id)
        with pytest.raises(abbe.Error):
            client.transform(tk_id, ct)
    finally:
        server.kill()
        server.wait()


class Zeros(io.RawIOBase):
    """`size` zero bytes, produced as they are read (nothing held)."""

    def __init__(self, size: int) -> None:
        self.left = size

    def readable(self) -> bool:
        return True

    def readinto(self, b: "bytearray | memoryview") -> int:  # type: ignore[override]
        n = min(len(b), self.left)
        b[:n] = bytes(n)
        self.left -= n
        return n


class Sink(io.RawIOBase):
    """Counts what is written to it."""

    def __init__(self) -> None:
        self.count = 0
        self.chunks: list[bytes] = []
        self.keep = False

    def writable(self) -> bool:
        return True

    def write(self, b: "bytes | bytearray | memoryview") -> int:  # type: ignore[override]
        self.count += len(b)
        if self.keep:
            self.chunks.append(bytes(b))
        return len(b)


def peak_rss_mib() -> float:
    """The process's peak resident set (VmHWM), in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def test_a_200_mib_stream_runs_in_constant_memory(tmp_path: Path) -> None:
    size = 200 << 20
    pk, mk = abbe.setup(level=100)
    key = abbe.keygen(mk, attrs=["doctor"])
    before = peak_rss_mib()
    path = tmp_path / "big.abbe"
    with open(path, "wb") as dst:
        assert abbe.encrypt_stream(pk, Zeros(size), dst, policy="doctor") == size
    sink = Sink()
    with open(path, "rb") as src:
        assert abbe.decrypt_stream(key, src, sink) == size
    assert sink.count == size
    grew = peak_rss_mib() - before
    print(f"200 MiB encrypted and decrypted through file objects: peak RSS grew by {grew:.1f} MiB")
    assert grew < 64, f"peak RSS grew by {grew:.1f} MiB for a 200 MiB stream"


class FailingSink(io.RawIOBase):
    """Accepts `room` bytes, then fails every write."""

    def __init__(self, room: int) -> None:
        self.room = room

    def writable(self) -> bool:
        return True

    def write(self, b: "bytes | bytearray | memoryview") -> int:  # type: ignore[override]
        if len(b) > self.room:
            raise OSError("disk full")
        self.room -= len(b)
        return len(b)


def test_a_failing_destination_is_an_error_not_a_silent_loss() -> None:
    pk, mk = abbe.setup(level=100)
    key = abbe.keygen(mk, attrs=["doctor"])
    data = os.urandom(100_000)
    # The last bytes of the ciphertext cannot be written.
    with pytest.raises(abbe.Error, match="disk full"):
        abbe.encrypt_stream(pk, io.BytesIO(data), FailingSink(50_000), policy="doctor")
    ct = abbe.encrypt(pk, data, policy="doctor")
    with pytest.raises(abbe.Error, match="disk full"):
        abbe.decrypt_stream(key, io.BytesIO(ct), FailingSink(1_000))
