"""Ruleset loading: extends chains, overrides, and one clear error per bad input."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ruleproof.model.registry import get_spec, load_ruleset
from ruleproof.model.ruleset import RulesetError


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_builtin_and_game_name_resolve_to_the_default():
    assert load_ruleset("pig").params["goal"] == 100
    assert load_ruleset("pig").source.endswith("pig.toml")


def test_extends_chain_and_overrides(tmp_path):
    base = write(tmp_path, "small.toml", 'extends = "pig"\n[params]\ngoal = 20\n')
    child = write(tmp_path, "smaller.toml", 'extends = "small.toml"\nname = "tiny"\n[params]\nfaces = 4\n')
    rs = load_ruleset(str(child))
    assert (rs.name, rs["goal"], rs["faces"]) == ("tiny", 20, 4)
    assert load_ruleset(str(base))["faces"] == 6


@pytest.mark.parametrize("text,key,reason", [
    ('extends = "pig"\n[params]\ngoal = 0\n', "params.goal", "integer from 1 to 200"),
    ('extends = "pig"\n[params]\ncolour = 3\n', "params.colour", "unknown parameter"),
    ('extends = "pig"\n[rulings]\nL99 = "x"\n', "rulings.L99", "unknown ruling id"),
    ('extends = "nope"\n', "extends", "unknown built-in ruleset"),
    ('extends = "pig"\nsurprise = 1\n', "surprise", "unknown key"),
    ('game = "pig"\nextends = "pig"\n', "extends", "exactly one"),
    ('extends = "pig"\n[params\n', "-", "not valid TOML"),
    ('extends = "missing.toml"\n', "extends", "no such ruleset file"),
])
def test_bad_rulesets_name_file_key_and_reason(tmp_path, text, key, reason):
    path = write(tmp_path, "bad.toml", text)
    with pytest.raises(RulesetError) as info:
        load_ruleset(str(path))
    err = info.value
    assert err.source == str(path) and err.key == key and reason in err.reason
    assert str(err).count("\n") == 0


def test_cycle_in_extends_is_an_error(tmp_path):
    write(tmp_path, "a.toml", 'extends = "b.toml"\n')
    write(tmp_path, "b.toml", 'extends = "a.toml"\n')
    with pytest.raises(RulesetError, match="cycle"):
        load_ruleset(str(tmp_path / "a.toml"))


@given(goal=st.integers(1, 200), faces=st.integers(2, 20))
def test_overrides_round_trip_through_toml(tmp_path_factory, goal, faces):
    path = tmp_path_factory.mktemp("rs") / "r.toml"
    path.write_text(f'extends = "pig"\n[params]\ngoal = {goal}\nfaces = "{faces}"\n')
    rs = load_ruleset(str(path))
    again = load_ruleset("pig").with_overrides(rs.as_dict()["params"], spec=get_spec("pig").schema)
    assert dict(again.params) == dict(rs.params)
