"""abbe — attribute-based and broadcast encryption, for Python.

The Rust library's facade: every scheme (:func:`schemes` lists them:
attribute-based, broadcast, identity-based broadcast, traitor tracing with
:func:`trace`), every security level and mode.
Keys and ciphertexts are ``bytes`` in abbe's documented format, so files move
freely between Python and the ``abbe`` command line.

    >>> import abbe
    >>> pk, mk = abbe.setup("waters11", level=128)
    >>> alice = abbe.keygen(mk, attrs=["doctor", "cardiology", "age = 42"])
    >>> ct = abbe.encrypt(pk, b"record", policy="doctor and age >= 18")
    >>> abbe.decrypt(alice, ct)
    b'record'

Errors: :class:`NotSatisfied` (the key does not satisfy the policy),
:class:`InvalidInput` (a corrupt object, a bad policy), :class:`StreamError`
(a file object given to :func:`encrypt_stream` or :func:`decrypt_stream`
failed: also an ``OSError``, its ``__cause__`` what the file object raised),
all subclasses of :class:`Error`.
"""

from ._abbe import (
    Error,
    InvalidInput,
    NotSatisfied,
    Policy,
    ProxyClient,
    SecretKey,
    StreamError,
    __version__,
    armor,
    dearmor,
    decrypt,
    decrypt_stream,
    encrypt,
    encrypt_stream,
    inspect,
    keygen,
    protect,
    schemes,
    setup,
    signer_keygen,
    trace,
    transform,
    transform_key,
)

__all__ = [
    "Error",
    "InvalidInput",
    "NotSatisfied",
    "Policy",
    "ProxyClient",
    "SecretKey",
    "StreamError",
    "__version__",
    "armor",
    "dearmor",
    "decrypt",
    "decrypt_stream",
    "encrypt",
    "encrypt_stream",
    "inspect",
    "keygen",
    "protect",
    "schemes",
    "setup",
    "signer_keygen",
    "trace",
    "transform",
    "transform_key",
]
