"""Boards: the official counts, the seeded generator (P01), layout files and their errors."""
import pytest

from ruleproof.model.presentes import SPEC
from ruleproof.model.presentes.board import (OFFICIAL, Square, dice_distribution, generate_layout, make_board,
                                   parse_layout)
from ruleproof.model.presentes.config import board_of
from ruleproof.model.ruleset import RulesetError


@pytest.mark.parametrize("name", list(OFFICIAL))
@pytest.mark.parametrize("seed", [0, 1, 99])
def test_official_boards_have_the_printed_counts(name, seed):
    size, luck, bad, shield = OFFICIAL[name]  # "O tabuleiro": 40/9/6/3, 70/16/11/5, 100/23/15/8
    b = make_board(name, seed)
    assert b.size == size
    assert (b.count(Square.LUCK), b.count(Square.BAD), b.count(Square.SHIELD)) == (luck, bad, shield)
    assert b.squares[0] == b.squares[1] == b.squares[-1] == Square.ORDINARY


def test_generator_spreads_evenly_and_is_seeded():
    a = generate_layout(40, 9, 6, 3, seed=5)
    assert a == generate_layout(40, 9, 6, 3, seed=5)
    assert a != generate_layout(40, 9, 6, 3, seed=6)
    specials = [i for i, sq in enumerate(a) if sq != Square.ORDINARY]
    # one special per run of the 37 free squares cut into 18 runs: gaps never exceed 2 runs (4 squares)
    assert max(b - a_ for a_, b in zip(specials, specials[1:])) <= 4


def test_layout_file_format(tmp_path):
    text = "# a board\n. . *  x\n s ★ ☠ 🛡 .  # trailing comment\n"
    squares = parse_layout(text)
    assert [int(s) for s in squares] == [0, 0, 1, 2, 3, 1, 2, 3, 0]
    path = tmp_path / "hand.txt"
    path.write_text(text, encoding="utf-8")
    rs = SPEC.default().with_overrides({"board": str(path)}, spec=SPEC.schema)
    assert board_of(rs).squares == squares


@pytest.mark.parametrize("text, reason", [("..q..", "unknown square symbol"), ("*...", "start and finish"),
                                          ("..", "4 to 400 squares"), ("...x", "start and finish")])
def test_bad_layouts_are_rejected(tmp_path, text, reason):
    path = tmp_path / "bad.txt"
    path.write_text(text)
    with pytest.raises(RulesetError) as err:
        SPEC.default().with_overrides({"board": str(path)}, spec=SPEC.schema)
    # the error names the layout file itself, not the parameter that points at it (issue 15)
    assert reason in str(err.value) and err.value.source == str(path)


def test_unknown_board_name_is_a_ruleset_error():
    with pytest.raises(RulesetError, match="unknown board"):
        SPEC.default().with_overrides({"board": "gigante"}, spec=SPEC.schema)


def test_example_files_load():
    from pathlib import Path

    from ruleproof.model.registry import load_ruleset_file
    root = Path(__file__).resolve().parents[1] / "model" / "presentes" / "examples"
    rs = load_ruleset_file(root / "hand-drawn.toml")
    b = board_of(rs)
    assert b.size == 16 and b.squares[0] == Square.ORDINARY


def test_dice_distributions_are_exact():
    one = dict(dice_distribution(1))
    two = dict(dice_distribution(2))
    assert one == {t: pytest.approx(1 / 6) for t in range(1, 7)} and sum(one.values()) == 1
    assert two[7] * 36 == 6 and two[2] * 36 == 1 and sum(two.values()) == 1
