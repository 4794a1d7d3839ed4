"""The solver's search in C (``binokel._solve``) against the Python search it mirrors.

Every value, every card's value and every threshold test of random positions of every rule
set must be the same both ways; the node limit is kept; bad arguments are refused with an
error, never a crash.
"""

from __future__ import annotations

import os
import random

import pytest
from ai_support import AI_RULES, random_states

from binokel.ai import solver as solver_module
from binokel.ai.fast import Position
from binokel.ai.solver import SolveAborted, Solver, new_table, search_core
from binokel.rules import RULE_SETS, Rules
from binokel.state import Phase

PURE = os.environ.get("BINOKEL_PURE", "") not in ("", "0")

pytestmark = pytest.mark.skipif(search_core() != "C", reason="the C search is not built (or BINOKEL_PURE is set)")


def play_positions(rules: str, most_cards: int, count: int, seed: int) -> list[Position]:
    rng = random.Random(f"core:{rules}:{seed}")
    found = []
    for state in random_states(rules, rng, 60):
        if state.phase is Phase.PLAY and sum(h.bit_count() for h in state.hands) <= most_cards:
            found.append(Position.from_state(state))
            if len(found) >= count:
                break
    return found


@pytest.mark.skipif(not os.environ.get("BINOKEL_EXPECT_COMPILED") or PURE, reason="no C compiler expected")
def test_a_machine_with_a_compiler_runs_the_c_search() -> None:
    assert search_core() == "C"


@pytest.mark.parametrize("rules", AI_RULES)
def test_the_c_search_gives_the_python_search_s_values(rules: str) -> None:
    positions = play_positions(rules, 18, 8, 1)
    assert positions, "no play positions found"
    for p in positions:
        fast, reference = Solver(p), Solver(p, table={})
        assert not isinstance(fast.table, dict) and isinstance(reference.table, dict)
        assert fast.value() == reference.value()
        assert fast.move_values() == reference.move_values()
        for threshold in (1, 25, 60, 120):
            assert fast.makes(threshold) == reference.makes(threshold)


@pytest.mark.parametrize("rules", ["standard", "kreuz", "four-sitout", "sechser"])
def test_deeper_positions_agree_too(rules: str) -> None:
    """Six tricks left (the C search's table grows, the killer cards come into play)."""
    in_trick = len(Rules.parse(rules).seating(0).order)
    positions = play_positions(rules, 6 * in_trick, 2, 2)
    assert positions
    for p in positions:
        assert Solver(p).value() == Solver(p, table={}).value()


def test_a_table_shared_by_the_worlds_of_one_deal_changes_no_value() -> None:
    positions = play_positions("standard", 15, 6, 3)
    shared = new_table()
    for p in positions:
        assert Solver(p, shared).move_values() == Solver(p, table={}).move_values()
    assert len(shared) > 0


def test_a_table_keyed_for_another_root_empties_itself() -> None:
    """The table's keys say which of its root's cards are still held: the same keys mean other
    positions for another root (here the soloist's hand swapped with a defender's), so it must
    start afresh."""
    positions = [p for p in play_positions("standard", 18, 8, 5) if not p.trick]
    assert positions
    core = solver_module._core
    assert core is not None
    differ = 0
    for p in positions:
        q = p.copy()
        other = next(s for s in range(p.players) if s != p.soloist and p.hands[s])
        q.hands[p.soloist], q.hands[other] = p.hands[other], p.hands[p.soloist]
        shared = new_table()
        value = Solver(p, shared).value()
        assert value == Solver(p, table={}).value()
        assert len(shared) > 0
        swapped = Solver(q, shared).value()
        assert swapped == Solver(q, table={}).value()
        differ += swapped != value
        assert Solver(q, shared).move_values() == Solver(q, table={}).move_values()
        assert Solver(p, shared).value() == value
        # a search that stores nothing, from another root: nothing of the old root is left
        assert core.search(shared, q.hands, q.hands, [], q.orders, q.leader, 0, -2, 0, 100, q.trump, 0, False,
                           False, (True,) * q.players, (True,) * q.players, (0,) * q.players, 0, 10) == (0, 1)
        assert len(shared) == 0
    assert differ, "no position whose value the swap changes: the test would miss a stale table"


@pytest.mark.parametrize("rules", ["standard", "kreuz"])
def test_the_c_playout_s_gain_is_a_gain_of_the_position(rules: str) -> None:
    core = solver_module._core
    assert core is not None
    for p in play_positions(rules, 27, 6, 7):
        solver = Solver(p)
        hands = list(p.hands)
        gain = core.playout(solver.table, p.hands, hands, p.trick, p.orders, p.leader, p.best, solver.trump,
                            solver.mode, p.beat_led, bool(p.rules.partner_exemption), solver.side, solver.gainer,
                            solver.melds, solver.pending)
        assert 0 <= gain <= solver.upper_bound()
        assert hands == p.hands


def meld_positions(rules: str, most_cards: int, count: int, seed: int) -> list[tuple[Position, list[int]]]:
    """Positions of trump games with random melds waiting for a first trick (some seats none)."""
    rng = random.Random(f"melds:{rules}:{seed}")
    return [(p, [rng.choice((0, 0, 10, 20, 75, 150)) for _ in range(p.players)])
            for p in play_positions(rules, most_cards, 3 * count, seed) if p.trump >= 0][:count]


@pytest.mark.parametrize("rules", ["standard", "kreuz", "sechser", "four-sitout", "classic40"])
def test_with_melds_the_c_search_gives_the_python_search_s_values(rules: str) -> None:
    """Who takes a trick, tracked (Solver's melds): the same values both ways, and not the values
    without melds (the tracking changes something)."""
    found = meld_positions(rules, 18, 8, 8)
    assert len(found) >= 4
    changed = 0
    for p, melds in found:
        fast, reference = Solver(p, melds=melds), Solver(p, table={}, melds=melds)
        assert fast.value() == reference.value()
        assert fast.move_values() == reference.move_values()
        for threshold in (1, 25, 60, 120, 200):
            assert fast.makes(threshold) == reference.makes(threshold)
        core = solver_module._core
        assert core is not None
        gain = core.playout(fast.table, p.hands, list(p.hands), p.trick, p.orders, p.leader, p.best, fast.trump,
                            fast.mode, p.beat_led, bool(p.rules.partner_exemption), fast.side, fast.gainer,
                            fast.melds, fast.pending)
        assert 0 <= gain <= fast.upper_bound()
        changed += fast.value() != Solver(p).value()
    assert changed


def test_a_table_keyed_for_other_melds_empties_itself() -> None:
    """The pending seats' bits in the key stand for the melds the table was filled with."""
    found = [found for seed in range(9, 15) for found in meld_positions("sechser", 24, 1, seed)]  # six deals
    assert len(found) >= 4
    differ = 0
    for p, melds in found:
        shared = new_table()
        plain = Solver(p, shared).value()
        with_melds = Solver(p, shared, melds=melds).value()
        assert with_melds == Solver(p, table={}, melds=melds).value()
        other = [m + 10 if m else 0 for m in melds]
        assert Solver(p, shared, melds=other).move_values() == Solver(p, table={}, melds=other).move_values()
        assert Solver(p, shared).value() == plain
        differ += with_melds != plain
    assert differ


def test_the_node_limit_is_kept() -> None:
    p = play_positions("standard", 27, 1, 4)[0]
    solver = Solver(p, node_limit=500)
    with pytest.raises(SolveAborted):
        solver.value()
    assert 500 < solver.nodes <= 501


@pytest.mark.parametrize("change, error", [
    ({"hands": [1]}, ValueError), ({"hands": [1] * 7}, ValueError), ({"hands": ["x", 0, 0]}, TypeError),
    ({"hands": [-1, 0, 0]}, OverflowError), ({"trick": [40]}, ValueError), ({"trick": [1, 2, 3]}, ValueError),
    ({"leader": 5}, ValueError), ({"orders": ((0, 1, 2),)}, ValueError), ({"orders": ((0, 9, 2),) * 3}, ValueError),
    ({"side": (True,)}, ValueError), ({"table": {}}, TypeError), ({"best": 3, "trick": [1]}, ValueError),
    ({"hands": [1, 2, 12]}, ValueError), ({"hands": [1, 2, 1 << 60]}, ValueError),
    ({"hands": [1, 2, 1 << 30]}, ValueError), ({"hands": [0, 0, 0]}, ValueError),
    ({"orders": ((0, 1, 2), (1, 2, -1), (2, 0, 1))}, ValueError),
    ({"hands": [8, 2, 4]}, ValueError), ({"base": [1, 2]}, ValueError), ({"base": [1 << 56, 2, 4]}, ValueError),
    ({"base": [(1 << 56) - 1] * 3, "hands": [0, 0, 0]}, ValueError),
    ({"melds": (0, 0)}, ValueError), ({"melds": (0, -10, 0)}, ValueError), ({"melds": (20000, 20000, 0)}, ValueError),
    ({"melds": (0, "x", 0)}, TypeError),
])
@pytest.mark.parametrize("function", ["search", "value", "playout"])
def test_bad_arguments_are_refused(function: str, change: dict[str, object], error: type[Exception]) -> None:
    core = solver_module._core
    assert core is not None
    window: dict[str, object] = {"search": {"alpha": 0, "beta": 1, "left": 30}, "value": {"high": 30, "probe": 1},
                                 "playout": {}}[function]
    arguments: dict[str, object] = {
        "table": core.Table(), "base": [1, 2, 4], "hands": [1, 2, 4], "trick": [],
        "orders": ((0, 1, 2), (1, 2, 0), (2, 0, 1)), "leader": 0, "best": 0, **window, "trump": 0, "mode": 0,
        "beat_led": False, "exemption": False, "side": (True, False, False), "gainer": (True, False, False),
        "melds": (0, 0, 0), "pending": 0, "node_limit": 100}
    if function == "playout":
        del arguments["node_limit"]
    arguments.update(change)
    with pytest.raises(error):
        getattr(core, function)(*arguments.values())


def test_a_refused_call_leaves_the_table_as_it_was() -> None:
    core = solver_module._core
    assert core is not None
    p = next(p for p in play_positions("standard", 18, 8, 6) if not p.trick)
    table = new_table()
    solver = Solver(p, table)
    value = solver.value()
    size = len(table)
    assert size > 0
    # another root (which would empty the table) with a trick card that is no card
    with pytest.raises(ValueError):
        core.value(table, list(reversed(p.hands)), list(reversed(p.hands)), [40], p.orders, p.leader, 0, 100,
                   50, p.trump, 0, False, False, solver.side, solver.gainer, solver.melds, 0, 1000)
    assert len(table) == size
    assert Solver(p, table).value() == value


def test_every_rule_set_is_covered() -> None:
    assert set(RULE_SETS) <= set(AI_RULES)
