"""encrypt_stream/decrypt_stream with file objects that misbehave: each
failure is an abbe.StreamError (an abbe.Error and an OSError) carrying the
file object's own exception as __cause__; nothing aborts the interpreter."""

from __future__ import annotations

import errno
import io
import os
import subprocess
import sys
import textwrap
from typing import Any, Callable, Optional

import pytest

import abbe

DATA = os.urandom(100_000)


@pytest.fixture(scope="module")
def keys() -> tuple[bytes, abbe.SecretKey, bytes]:
    """(public key, a key for "doctor", a ciphertext of DATA for "doctor")."""
    pk, mk = abbe.setup(level=100)
    key = abbe.keygen(mk, attrs=["doctor"])
    return pk, key, abbe.encrypt(pk, DATA, policy="doctor")


class Writer:
    """A writer whose write(b) keeps b and returns answer(b)."""

    def __init__(self, answer: Callable[[bytes], Any]) -> None:
        self.answer = answer
        self.out = bytearray()

    def write(self, b: bytes) -> Any:
        self.out += b
        return self.answer(b)


class Reader:
    """A reader of `data` whose read(n) returns answer(chunk, n)."""

    def __init__(self, data: bytes, answer: Callable[[bytes, int], Any]) -> None:
        self.src = io.BytesIO(data)
        self.answer = answer

    def read(self, n: int) -> Any:
        return self.answer(self.src.read(n), n)


def raise_(e: BaseException) -> Any:
    raise e


BAD_WRITERS: dict[str, Callable[[bytes], Any]] = {
    "more than given": lambda b: len(b) + 1,
    "2**40": lambda b: 2**40,
    "2**100": lambda b: 2**100,
    "negative": lambda b: -1,
    "zero": lambda b: 0,
    "a str": lambda b: str(len(b)),
    "a float": lambda b: float(len(b)),
    "raising ValueError": lambda b: raise_(ValueError("I/O operation on closed file.")),
}

BAD_READERS: dict[str, Callable[[bytes, int], Any]] = {
    "more than asked": lambda chunk, n: chunk + b"x" * (n + 1),
    "a str": lambda chunk, n: chunk.decode("latin-1"),
    "None": lambda chunk, n: None,
    "an int": lambda chunk, n: len(chunk),
    "raising RuntimeError": lambda chunk, n: raise_(RuntimeError("sensor unplugged")),
}


def check_stream_error(e: pytest.ExceptionInfo[abbe.StreamError], cause: Optional[type[BaseException]]) -> None:
    assert isinstance(e.value, abbe.Error) and isinstance(e.value, OSError)
    if cause is None:
        assert e.value.__cause__ is None
    else:
        assert isinstance(e.value.__cause__, cause)


@pytest.mark.parametrize("name", BAD_WRITERS)
def test_encrypt_stream_refuses_a_misbehaving_writer(keys: tuple[bytes, abbe.SecretKey, bytes], name: str) -> None:
    pk, _, _ = keys
    with pytest.raises(abbe.StreamError, match=r"dst\.write\(\)") as e:
        abbe.encrypt_stream(pk, io.BytesIO(DATA), Writer(BAD_WRITERS[name]), policy="doctor")
    check_stream_error(e, ValueError if name.startswith("raising") else None)


@pytest.mark.parametrize("name", BAD_WRITERS)
def test_decrypt_stream_refuses_a_misbehaving_writer(keys: tuple[bytes, abbe.SecretKey, bytes], name: str) -> None:
    _, key, ct = keys
    with pytest.raises(abbe.StreamError, match=r"dst\.write\(\)") as e:
        abbe.decrypt_stream(key, io.BytesIO(ct), Writer(BAD_WRITERS[name]))
    check_stream_error(e, ValueError if name.startswith("raising") else None)


def misbehaving_after(at: int, answer: Callable[[bytes, int], Any]) -> Callable[[bytes, int], Any]:
    """A read that passes the file through for `at` bytes, then answers
    as `answer` does."""
    given = [0]

    def read(chunk: bytes, n: int) -> Any:
        given[0] += len(chunk)
        return answer(chunk, n) if given[0] > at else chunk

    return read


@pytest.mark.parametrize("name", BAD_READERS)
@pytest.mark.parametrize("at", [0, 70_000], ids=["at once", "in the payload"])
def test_encrypt_stream_refuses_a_misbehaving_reader(keys: tuple[bytes, abbe.SecretKey, bytes], name: str, at: int) -> None:
    pk, _, _ = keys
    read = misbehaving_after(at, BAD_READERS[name])
    with pytest.raises(abbe.StreamError, match=r"src\.read\(") as e:
        abbe.encrypt_stream(pk, Reader(DATA, read), io.BytesIO(), policy="doctor")
    check_stream_error(e, RuntimeError if name.startswith("raising") else None)


@pytest.mark.parametrize("name", BAD_READERS)
@pytest.mark.parametrize("at", [0, 70_000], ids=["in the head", "in the payload"])
def test_decrypt_stream_refuses_a_misbehaving_reader(keys: tuple[bytes, abbe.SecretKey, bytes], name: str, at: int) -> None:
    _, key, ct = keys
    read = misbehaving_after(at, BAD_READERS[name])
    with pytest.raises(abbe.StreamError, match=r"src\.read\(") as e:
        abbe.decrypt_stream(key, Reader(ct, read), io.BytesIO())
    check_stream_error(e, RuntimeError if name.startswith("raising") else None)


class DiskFull(io.RawIOBase):
    """Takes `room` bytes, then fails as a full disk does."""

    def __init__(self, room: int) -> None:
        self.room = room

    def writable(self) -> bool:
        return True

    def write(self, b: "bytes | bytearray | memoryview") -> int:  # type: ignore[override]
        if len(b) > self.room:
            raise OSError(errno.ENOSPC, "No space left on device")
        self.room -= len(b)
        return len(b)


@pytest.mark.parametrize("room", [0, 70_000], ids=["in the head", "in the payload"])
def test_an_oserror_keeps_its_cause_and_errno(keys: tuple[bytes, abbe.SecretKey, bytes], room: int) -> None:
    pk, key, ct = keys
    runs: list[Callable[[], int]] = [
        lambda: abbe.encrypt_stream(pk, io.BytesIO(DATA), DiskFull(room), policy="doctor"),
        lambda: abbe.decrypt_stream(key, io.BytesIO(ct), DiskFull(room)),
    ]
    for run in runs:
        with pytest.raises(OSError, match="No space left") as e:
            run()
        assert isinstance(e.value, abbe.StreamError) and not isinstance(e.value, abbe.InvalidInput)
        assert e.value.errno == errno.ENOSPC
        assert isinstance(e.value.__cause__, OSError) and e.value.__cause__.errno == errno.ENOSPC


class ClosingBytesIO(io.BytesIO):
    """Closes itself after its first read or write."""

    def read(self, n: Optional[int] = -1) -> bytes:
        data = super().read(n)
        self.close()
        return data

    def write(self, b: Any) -> int:
        n = super().write(b)
        self.close()
        return n


def test_a_file_closed_mid_stream(keys: tuple[bytes, abbe.SecretKey, bytes]) -> None:
    pk, key, ct = keys
    cases: list[Callable[[], int]] = [
        lambda: abbe.encrypt_stream(pk, ClosingBytesIO(DATA), io.BytesIO(), policy="doctor"),
        lambda: abbe.encrypt_stream(pk, io.BytesIO(DATA), ClosingBytesIO(), policy="doctor"),
        lambda: abbe.decrypt_stream(key, ClosingBytesIO(ct), io.BytesIO()),
        lambda: abbe.decrypt_stream(key, io.BytesIO(ct), ClosingBytesIO()),
    ]
    for run in cases:
        with pytest.raises(abbe.StreamError, match="closed file") as e:
            run()
        assert isinstance(e.value.__cause__, ValueError)


def test_objects_without_read_or_write(keys: tuple[bytes, abbe.SecretKey, bytes]) -> None:
    pk, key, ct = keys
    with pytest.raises(abbe.StreamError, match=r"src has no read\(\)") as e:
        abbe.encrypt_stream(pk, object(), io.BytesIO(), policy="doctor")  # type: ignore[arg-type]
    assert isinstance(e.value.__cause__, AttributeError)
    with pytest.raises(abbe.StreamError, match=r"dst has no write\(\)"):
        abbe.encrypt_stream(pk, io.BytesIO(DATA), object(), policy="doctor")  # type: ignore[arg-type]
    with pytest.raises(abbe.StreamError, match=r"src has no read\(\)"):
        abbe.decrypt_stream(key, b"not a file", io.BytesIO())  # type: ignore[arg-type]
    with pytest.raises(abbe.StreamError, match=r"dst has no write\(\)"):
        abbe.decrypt_stream(key, io.BytesIO(ct), "not a file")  # type: ignore[arg-type]


class NonBlockingRaw(io.RawIOBase):
    """A non-blocking raw stream that never has room or data: None."""

    def readable(self) -> bool:
        return True

    def writable(self) -> bool:
        return True

    def read(self, n: int = -1) -> Optional[bytes]:
        return None

    def write(self, b: Any) -> Optional[int]:
        return None


def test_none_from_a_non_blocking_raw_stream_is_refused(keys: tuple[bytes, abbe.SecretKey, bytes]) -> None:
    pk, key, ct = keys
    with pytest.raises(abbe.StreamError, match="non-blocking"):
        abbe.encrypt_stream(pk, io.BytesIO(DATA), NonBlockingRaw(), policy="doctor")
    with pytest.raises(abbe.StreamError, match="non-blocking"):
        abbe.encrypt_stream(pk, NonBlockingRaw(), io.BytesIO(), policy="doctor")
    with pytest.raises(abbe.StreamError, match="non-blocking"):
        abbe.decrypt_stream(key, NonBlockingRaw(), io.BytesIO())


def test_a_writer_returning_none_took_everything(keys: tuple[bytes, abbe.SecretKey, bytes]) -> None:
    """A plain object's write() that returns nothing (not a raw stream)."""
    pk, key, _ = keys
    enc = Writer(lambda b: None)
    assert abbe.encrypt_stream(pk, io.BytesIO(DATA), enc, policy="doctor") == len(DATA)
    dec = Writer(lambda b: None)
    assert abbe.decrypt_stream(key, io.BytesIO(bytes(enc.out)), dec) == len(DATA)
    assert bytes(dec.out) == DATA


def test_short_reads_and_writes_are_fine(keys: tuple[bytes, abbe.SecretKey, bytes]) -> None:
    pk, key, _ = keys

    class Trickle:
        """Reads at most 1000 bytes at a time; writes a third of what it is given."""

        def __init__(self, data: bytes = b"") -> None:
            self.src = io.BytesIO(data)
            self.out = bytearray()

        def read(self, n: int) -> bytes:
            return self.src.read(min(n, 1000))

        def write(self, b: bytes) -> int:
            k = max(1, len(b) // 3)
            self.out += b[:k]
            return k

    enc = Trickle()
    assert abbe.encrypt_stream(pk, Trickle(DATA), enc, policy="doctor") == len(DATA)
    dec = Trickle()
    assert abbe.decrypt_stream(key, Trickle(bytes(enc.out)), dec) == len(DATA)
    assert bytes(dec.out) == DATA


def test_keyboard_interrupt_passes_through_unwrapped(keys: tuple[bytes, abbe.SecretKey, bytes]) -> None:
    pk, _, _ = keys
    with pytest.raises(KeyboardInterrupt):
        abbe.encrypt_stream(pk, io.BytesIO(DATA), Writer(lambda b: raise_(KeyboardInterrupt())), policy="doctor")


def test_an_over_reporting_writer_does_not_abort_the_interpreter() -> None:
    """It used to: a panic in BufWriter's drop while unwinding (SIGABRT)."""
    script = textwrap.dedent(
        """
        import io, abbe
        class W:
            def write(self, b):
                return len(b) + 1
        pk, _ = abbe.setup(level=100)
        for answer in (lambda b: len(b) + 1, lambda b: 2**40):
            W.write = lambda self, b, a=answer: a(b)
            try:
                abbe.encrypt_stream(pk, io.BytesIO(b"x" * 100), W(), policy="doctor")
            except abbe.StreamError as e:
                print("refused:", e)
        """
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.count("refused:") == 2, run.stdout
