"""List arguments reach the library item by item: an item is one attribute
or one identity, never a list that is split again."""

from __future__ import annotations

import pytest

import abbe


def test_an_attribute_item_cannot_add_attributes_to_a_key() -> None:
    pk, mk = abbe.setup(level=100)
    with pytest.raises(abbe.InvalidInput, match=r'item \[1\] "department = 7, admin"'):
        abbe.keygen(mk, attrs=["doctor", "department = 7, admin"])
    # Had it been split, this key would open files for policy "admin".
    ct = abbe.encrypt(pk, b"payroll", policy="admin")
    for attrs in (["department = 7 admin"], ["department, admin"], ["admin,"], [""]):
        with pytest.raises(abbe.InvalidInput, match="item"):
            abbe.keygen(mk, attrs=attrs)
    key = abbe.keygen(mk, attrs=["department = 7"])
    with pytest.raises(abbe.NotSatisfied):
        abbe.decrypt(key, ct)


def test_an_identity_item_cannot_add_recipients() -> None:
    pk, mk = abbe.setup("gw09-ibbe", level=100, max_recipients=4)
    with pytest.raises(abbe.InvalidInput, match=r'item \[0\] "alice@example.com, mallory@evil.example"'):
        abbe.encrypt(pk, b"memo", to_identities=["alice@example.com, mallory@evil.example"])
    with pytest.raises(abbe.InvalidInput, match="at least one identity"):
        abbe.encrypt(pk, b"memo", to_identities=[])
    # Items are identities as keygen(identity=) reads them: trimmed.
    alice = abbe.keygen(mk, identity="alice@example.com")
    mallory = abbe.keygen(mk, identity="mallory@evil.example")
    ct = abbe.encrypt(pk, b"memo", to_identities=[" alice@example.com ", "bob"])
    assert abbe.decrypt(alice, ct, public=pk) == b"memo"
    with pytest.raises(abbe.NotSatisfied):
        abbe.decrypt(mallory, ct, public=pk)


def test_key_policy_attribute_items_and_streams() -> None:
    import io

    pk, mk = abbe.setup("gpsw06", level=100)
    key = abbe.keygen(mk, policy="a and b")
    with pytest.raises(abbe.InvalidInput, match=r'item \[0\] "a, b"'):
        abbe.encrypt(pk, b"m", attrs=["a, b"])
    with pytest.raises(abbe.InvalidInput, match=r'item \[1\] "b, c"'):
        abbe.encrypt_stream(pk, io.BytesIO(b"m"), io.BytesIO(), attrs=["a", "b, c"])
    assert abbe.decrypt(key, abbe.encrypt(pk, b"m", attrs=["a", "b"])) == b"m"


def test_an_item_is_one_attribute_quoted_or_numeric() -> None:
    pk, mk = abbe.setup(level=100)
    key = abbe.keygen(mk, attrs=['"head of ward, east"', "age = 42"])
    ct = abbe.encrypt(pk, b"rota", policy='"head of ward, east" and age >= 40')
    assert abbe.decrypt(key, ct) == b"rota"
    # The quoted item is one attribute, not "head of ward" and "east".
    with pytest.raises(abbe.NotSatisfied):
        abbe.decrypt(key, abbe.encrypt(pk, b"x", policy="east"))


def test_policy_satisfied_by_takes_items() -> None:
    p = abbe.Policy("admin")
    with pytest.raises(abbe.InvalidInput, match=r'item \[0\] "department = 7, admin"'):
        p.satisfied_by(["department = 7, admin"])
    assert p.satisfied_by(["department = 7", "admin"])
    assert not p.satisfied_by(["department = 7"])
