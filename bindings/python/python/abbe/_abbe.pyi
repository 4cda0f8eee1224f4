"""Type stubs of the compiled module (see abbe/__init__.py)."""

from typing import Any, Callable, Literal, Optional, Protocol, Sequence, Tuple, Union

# What `encrypt` can make: "cca" (default), "rcca" (outsourceable), "cpa".
Mode = Literal["cca", "rcca", "cpa"]

KeyLike = Union["SecretKey", bytes]

class Readable(Protocol):
    """A blocking binary file object: read(n) returns bytes, at most n, b"" at the end.

    None is what a non-blocking stream returns when it has no data yet: it is
    refused (StreamError), as is anything but bytes or more than n of them.
    """

    def read(self, n: int, /) -> Optional[bytes]: ...

class Writable(Protocol):
    """A blocking binary file object: write(b) returns how many bytes it took, 1 to len(b).

    None means it took all of b, except from a raw stream (io.RawIOBase), where
    it means the stream is non-blocking and took nothing: refused (StreamError),
    as is any other answer.
    """

    def write(self, b: bytes, /) -> Optional[int]: ...

class Error(Exception): ...
class InvalidInput(Error): ...
class NotSatisfied(Error): ...

class StreamError(Error, OSError):
    """A file object given to encrypt_stream or decrypt_stream failed or broke the protocol above.

    Also an OSError (as Python's own buffered files report a misbehaving raw
    stream). What the file object raised is ``__cause__``; an OSError's errno is
    kept. KeyboardInterrupt and SystemExit raised by it pass unwrapped.
    """

class SecretKey:
    """A secret key; wiped when collected, never shown by repr."""

    def __init__(self, data: bytes, *, passphrase: Optional[str] = None) -> None: ...
    def __bytes__(self) -> bytes: ...
    @property
    def kind(self) -> str: ...
    @property
    def scheme(self) -> str: ...
    @property
    def curve(self) -> str: ...

class Policy:
    """An access policy (infix, postfix or FBF syntax)."""

    def __init__(self, text: str) -> None: ...
    @property
    def attributes(self) -> list[str]: ...
    def satisfied_by(self, attrs: Sequence[str]) -> bool:
        """Each item is one attribute ("doctor", "age = 42"); an item holding more is refused."""

class ProxyClient:
    """A client of ``abbe proxy serve``."""

    def __init__(self, url: str, token: Optional[str] = None) -> None: ...
    def register(self, tk: bytes) -> str: ...
    def transform(self, id: str, ct: bytes) -> bytes: ...
    def decrypt(
        self,
        rk: KeyLike,
        id: str,
        ct: bytes,
        *,
        verify_with: Optional[bytes] = None,
        passphrase: Optional[str] = None,
    ) -> bytes:
        """Transforms ``ct`` on the proxy and decrypts the answer with the
        retrieval key, only as the transformation of ``ct``."""
        ...
    def transform_url(self, id: str, url: str) -> bytes: ...
    def delete(self, id: str) -> None: ...

def setup(
    scheme: str = "waters11",
    *,
    level: Optional[int] = None,
    curve: Optional[str] = None,
    users: Optional[int] = None,
    universe: Optional[Sequence[str]] = None,
    max_recipients: Optional[int] = None,
    expansion: Optional[float] = None,
    optimize: Optional[str] = None,
    placement: Optional[str] = None,
) -> Tuple[bytes, SecretKey]: ...
# List arguments (attrs=, to_identities=) reach the library item by item:
# each item is exactly one attribute ("doctor", "age = 42", '"head of ward"')
# or one identity; an item holding a list ("a, b") raises InvalidInput naming
# the item, never read as two.
# ABE keys may carry a last day (valid_until="YYYY-MM-DD", UTC); ABE files
# are dated today (or as_of=), and a key past its last day cannot open them
# (NotSatisfied, saying so); no_expiry=True leaves the date out.
def keygen(
    mk: KeyLike,
    *,
    attrs: Optional[Sequence[str]] = None,
    policy: Optional[str] = None,
    user: Optional[int] = None,
    identity: Optional[str] = None,
    public: Optional[bytes] = None,
    valid_until: Optional[str] = None,
    passphrase: Optional[str] = None,
) -> SecretKey: ...
def encrypt(
    pk: bytes,
    data: bytes,
    *,
    policy: Optional[str] = None,
    attrs: Optional[Sequence[str]] = None,
    to: Optional[str] = None,
    to_identities: Optional[Sequence[str]] = None,
    mode: Optional[Mode] = None,
    sign_with: Optional[KeyLike] = None,
    passphrase: Optional[str] = None,
    no_expiry: bool = False,
    as_of: Optional[str] = None,
) -> bytes: ...
# A transformed file (decrypted with a retrieval key) is decrypted only as
# the transformation of the ciphertext named by original= (its bytes) or
# expect_header= (inspect(ct)["header_id"]); any_original=True waives that.
def decrypt(
    key: KeyLike,
    ct: bytes,
    *,
    public: Optional[bytes] = None,
    verify_with: Optional[bytes] = None,
    original: Optional[bytes] = None,
    expect_header: Optional[str] = None,
    any_original: bool = False,
    passphrase: Optional[str] = None,
) -> bytes: ...
def encrypt_stream(
    pk: bytes,
    src: Readable,
    dst: Writable,
    *,
    policy: Optional[str] = None,
    attrs: Optional[Sequence[str]] = None,
    to: Optional[str] = None,
    to_identities: Optional[Sequence[str]] = None,
    mode: Optional[Mode] = None,
    sign_with: Optional[KeyLike] = None,
    passphrase: Optional[str] = None,
    no_expiry: bool = False,
    as_of: Optional[str] = None,
) -> int: ...
def decrypt_stream(
    key: KeyLike,
    src: Readable,
    dst: Writable,
    *,
    public: Optional[bytes] = None,
    verify_with: Optional[bytes] = None,
    original: Optional[bytes] = None,
    expect_header: Optional[str] = None,
    any_original: bool = False,
    passphrase: Optional[str] = None,
) -> int: ...
def transform_key(key: KeyLike, *, passphrase: Optional[str] = None) -> Tuple[bytes, SecretKey]: ...
def transform(tk: bytes, ct: bytes) -> bytes: ...
def signer_keygen(*, level: Optional[int] = None, curve: Optional[str] = None) -> Tuple[SecretKey, bytes]: ...
__version__: str
def armor(obj: KeyLike) -> bytes: ...
# The object inside an armor; every function also takes armored input.
def dearmor(text: bytes) -> bytes: ...
def protect(key: KeyLike, passphrase: str) -> bytes: ...
# Values for scripts: sizes, level and format version as ints, "signed" as a
# bool, "header_id" as hex; the keys are `abbe inspect --json`'s.
def inspect(obj: KeyLike) -> dict[str, Union[str, int, bool]]: ...
# The library's table of schemes: name, family, levels, key and ciphertext
# sides, setup parameters, outsourcing, tracing, insecure, what.
def schemes() -> list[dict[str, Any]]: ...
def trace(
    pk: bytes,
    decoder: Callable[[bytes], Optional[bytes]],
    *,
    master: Optional[KeyLike] = None,
    to: Optional[str] = None,
    error: float = 1e-6,
    max_queries: int = 100000,
    probe_like: Optional[Sequence[bytes]] = None,
    passphrase: Optional[str] = None,
) -> dict[str, Any]: ...
