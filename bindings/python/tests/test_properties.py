"""Property tests (hypothesis): random policies over a small universe and
random attribute sets; a key decrypts exactly when its attributes satisfy
the policy, as abbe.Policy says."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

import abbe

NAMES = ["a", "b", "c", "d", "e"]
PK, MK = abbe.setup("waters11", level=100)
PK_KP, MK_KP = abbe.setup("gpsw06", level=100)


def policies() -> st.SearchStrategy[str]:
    leaves = st.sampled_from(NAMES)

    def extend(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        gate = st.sampled_from(["and", "or"]).flatmap(
            lambda g: st.lists(children, min_size=2, max_size=3).map(lambda cs: "(" + f" {g} ".join(cs) + ")")
        )
        threshold = st.lists(children, min_size=2, max_size=4).flatmap(
            lambda cs: st.integers(1, len(cs)).map(lambda k: f"{k} of ({', '.join(cs)})")
        )
        return gate | threshold

    return st.recursive(leaves, extend, max_leaves=6)


attribute_sets = st.lists(st.sampled_from(NAMES), min_size=1, max_size=5, unique=True)


@pytest.mark.parametrize("form", ["cp", "kp"])
@settings(max_examples=20, deadline=None)
@given(policy=policies(), attrs=attribute_sets)
def test_decryption_agrees_with_the_policy(form: str, policy: str, attrs: list[str]) -> None:
    """CP: the key holds attrs, the ciphertext the policy; KP the reverse."""
    if form == "cp":
        key = abbe.keygen(MK, attrs=attrs)
        ct = abbe.encrypt(PK, b"m", policy=policy)
    else:
        key = abbe.keygen(MK_KP, policy=policy)
        ct = abbe.encrypt(PK_KP, b"m", attrs=attrs)
    if abbe.Policy(policy).satisfied_by(attrs):
        assert abbe.decrypt(key, ct) == b"m"
    else:
        with pytest.raises(abbe.NotSatisfied):
            abbe.decrypt(key, ct)


@given(policy=policies())
def test_a_policy_prints_to_text_that_parses_to_itself(policy: str) -> None:
    p = abbe.Policy(policy)
    again = abbe.Policy(str(p))
    assert str(again) == str(p)
    assert sorted(set(again.attributes)) == sorted(set(p.attributes))
