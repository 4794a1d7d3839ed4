"""The research adapters: PettingZoo, OpenSpiel, self-play data, tournaments on Ray, and
that no observation reveals a hidden card (docs/research.md)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from conftest import RULE_VARIANTS, random_playout
from test_properties import hidden_places, replay_actions, swapped_deal

from binokel.research import features
from binokel.record import replay_deal
from binokel.rules import Rules
from binokel.state import Phase, State
from binokel.view import view

ADAPTER_RULES = ("standard", "classic40", "kreuz", "four-sitout", "sechser", "club")


# ---------------------------------------------------------------------- the encoding

def test_every_legal_action_has_its_own_index_and_maps_back() -> None:
    """Over random deals of every variant: the legal indices are distinct, and each maps
    back to the engine's action (bids beyond the offered range are the only gaps)."""
    checked = Counter()
    for rules in RULE_VARIANTS:
        for state in random_playout(rules, 3)[:-1]:
            seen = view(state, state.to_move)
            indices = features.legal_indices(seen)
            assert indices, state
            for action in seen.legal_actions:
                index = features.index_of(action, seen)
                if index is None:
                    assert action.value - features.lowest_bid(seen) > 10 * (features.BID_SLOTS - 1)
                    continue
                assert features.action_of(index, seen) == action
                checked[action.kind.name] += 1
            assert len(indices) == len({features.index_of(a, seen) for a in seen.legal_actions} - {None})
    assert set(checked) >= {"PASS", "BID", "DISCARD", "GAME", "SURRENDER", "PLAY_ON", "PLAY", "TAKE"}, checked


def test_observation_fields_are_laid_out_and_bounded() -> None:
    low, high = features.bounds()
    assert len(low) == len(high) == features.OBSERVATION_SIZE == sum(size for _, size, _ in features.FIELDS)
    for rules in ADAPTER_RULES:
        for state in random_playout(rules, 11):
            for seat in range(state.players):
                vector = features.observation(view(state, seat), totals=(1200, -300, 0))
                assert all(lo <= v <= hi for lo, v, hi in zip(low, vector, high))
    seen = view(random_playout("standard", 2)[0], 1)
    vector = features.observation(seen)
    hand = vector[features.OFFSETS["hand"]:features.OFFSETS["hand"] + features.KINDS]
    assert sum(hand) == 15 and hand == [float(seen.hand.count(c)) for c in features.CARDS]


def test_the_documented_field_table_is_the_encoding() -> None:
    text = (Path(__file__).resolve().parent.parent / "docs" / "research.md").read_text()
    rows = [line.split("|")[1:5] for line in text.splitlines() if line.startswith("| `")]
    documented = [(name.strip(" `"), int(offset), int(size), meaning.strip()) for name, offset, size, meaning in rows]
    assert documented == [(name, features.OFFSETS[name], size, meaning) for name, size, meaning in features.FIELDS]


# ---------------------------------------------------------------------- no leak

def scrambled_twins(rules: Rules, seed: int, samples: int = 6):
    """(state, seat, twin): the twin deal has hidden cards of that seat exchanged and the
    same actions replayed legally, so the seat cannot tell the two apart."""
    rng = random.Random(seed)
    states = random_playout(rules, seed)
    for state in rng.sample(states, min(samples, len(states))):
        for seat in range(state.players):
            places = hidden_places(state, seat)
            if len(places) < 2:
                continue
            for _ in range(3):
                a, b = rng.sample(sorted(places), 2)
                x, y = rng.choice(sorted(places[a])), rng.choice(sorted(places[b]))
                deal = swapped_deal(state, a, x, b, y) if x != y else None
                twin = replay_actions(state, *deal) if deal is not None else None
                if twin is not None and twin.melds == state.melds:
                    yield state, seat, twin


def test_features_do_not_change_when_hidden_cards_are_scrambled() -> None:
    compared = Counter()
    for rules in RULE_VARIANTS:
        for seed in range(3):
            for state, seat, twin in scrambled_twins(rules, seed):
                mine, theirs = view(state, seat), view(twin, seat)
                assert features.observation(mine) == features.observation(theirs)
                assert features.legal_indices(mine) == features.legal_indices(theirs)
                compared[state.phase] += 1
    assert sum(compared.values()) >= 300 and {Phase.AUCTION, Phase.PLAY, Phase.OVER} <= set(compared), compared


def test_pettingzoo_observations_do_not_change_when_hidden_cards_are_scrambled() -> None:
    pytest.importorskip("pettingzoo", reason="needs binokel[rl]")
    import numpy as np

    from binokel.research.pettingzoo import raw_env

    compared = 0
    for rules in ADAPTER_RULES:
        table = raw_env(rules)
        table.reset(seed=0)
        for seed in range(3):
            for state, seat, twin in scrambled_twins(Rules.parse(rules), seed):
                table._state = state
                mine = table.observe(f"seat_{seat}")
                table._state = twin
                theirs = table.observe(f"seat_{seat}")
                assert np.array_equal(mine["observation"], theirs["observation"])
                assert np.array_equal(mine["action_mask"], theirs["action_mask"])
                compared += 1
    assert compared >= 100, compared


def test_openspiel_information_states_do_not_change_when_hidden_cards_are_scrambled() -> None:
    pyspiel = pytest.importorskip("pyspiel", reason="needs binokel[rl]")
    from binokel.research.openspiel import engine_history

    compared = 0
    for rules in ADAPTER_RULES:
        game = pyspiel.load_game("binokel", {"rules": rules})
        for seed in range(3):
            for state, seat, twin in scrambled_twins(Rules.parse(rules), seed):
                try:
                    pair = [game.new_initial_state() for _ in range(2)]
                    for spiel, deal in zip(pair, (state, twin)):
                        for action in engine_history(deal):
                            spiel.apply_action(action)
                except ValueError:
                    continue  # a random open-auction bid beyond the offered range
                one, two = pair
                assert one.information_state_string(seat) == two.information_state_string(seat)
                assert one.information_state_tensor(seat) == two.information_state_tensor(seat)
                assert one.observation_string(seat) == two.observation_string(seat)
                assert one.observation_tensor(seat) == two.observation_tensor(seat)
                if not one.is_terminal() and one.current_player() == seat:
                    assert one.legal_actions() == two.legal_actions()
                assert str(one) != str(two)  # the deals do differ
                compared += 1
    assert compared >= 100, compared


# ---------------------------------------------------------------------- PettingZoo

@pytest.mark.filterwarnings("ignore")  # PettingZoo's advice on Dict observation spaces; errors still fail
@pytest.mark.parametrize("rules", ADAPTER_RULES)
def test_pettingzoo_api_and_seed_tests(rules: str) -> None:
    pytest.importorskip("pettingzoo", reason="needs binokel[rl]")
    from pettingzoo.test import api_test, seed_test

    from binokel.research.pettingzoo import env

    api_test(env(rules), num_cycles=300)
    seed_test(lambda: env(rules), num_cycles=300)


def test_pettingzoo_parallel_api() -> None:
    pytest.importorskip("pettingzoo", reason="needs binokel[rl]")
    from pettingzoo.test import parallel_api_test

    from binokel.research.pettingzoo import parallel_env

    parallel_api_test(parallel_env("classic40"), num_cycles=300)


def test_pettingzoo_rewards_are_the_deal_scores_and_the_sitting_out_seat_is_no_agent() -> None:
    pytest.importorskip("pettingzoo", reason="needs binokel[rl]")
    import numpy as np

    from binokel.research.pettingzoo import env

    rng = np.random.default_rng(0)
    for rules in ADAPTER_RULES:
        table = env(rules)
        for seed in range(3):
            table.reset(seed=seed)
            state = table.unwrapped.state_now
            out = state.sitting_out
            assert table.agents == [f"seat_{s}" for s in range(state.players) if s != out]
            paid: Counter = Counter()
            for agent in table.agent_iter():
                observation, reward, terminated, truncated, _ = table.last()
                paid[agent] += reward
                if terminated or truncated:
                    table.step(None)
                else:
                    assert table.unwrapped.state_now.to_move == int(agent.split("_")[1])
                    table.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
            final = table.unwrapped.state_now
            assert final.is_over()
            assert dict(paid) == {f"seat_{s}": float(final.scores[s]) for s in range(final.players) if s != out}


def test_pettingzoo_whole_game_pays_the_totals_or_the_win() -> None:
    pytest.importorskip("pettingzoo", reason="needs binokel[rl]")
    import numpy as np

    from binokel.research.pettingzoo import env

    for reward in ("score", "win"):
        table = env("standard(target=300)", episode="game", reward=reward)
        table.reset(seed=4)
        rng = np.random.default_rng(1)
        paid: Counter = Counter()
        for agent in table.agent_iter():
            observation, got, terminated, _, _ = table.last()
            paid[agent] += got
            table.step(None if terminated else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        game = table.unwrapped._game
        assert game.is_over() and len(game.deals) > 1
        expected = game.totals if reward == "score" else [int(s == game.winner) for s in range(3)]
        assert [paid[f"seat_{s}"] for s in range(3)] == [float(v) for v in expected]


def test_pettingzoo_refuses_an_illegal_action() -> None:
    pytest.importorskip("pettingzoo", reason="needs binokel[rl]")
    from binokel.research.pettingzoo import env

    table = env("standard")
    table.reset(seed=1)
    with pytest.raises(ValueError, match="not legal"):
        table.step(features.PLAY_BASE)  # forehand must open the auction


# ---------------------------------------------------------------------- OpenSpiel

@pytest.mark.parametrize("rules", ADAPTER_RULES)
def test_openspiel_random_simulations_with_serialisation(rules: str) -> None:
    pyspiel = pytest.importorskip("pyspiel", reason="needs binokel[rl]")
    import binokel.research.openspiel  # noqa: F401 - registers the game

    game = pyspiel.load_game("binokel", {"rules": rules})
    assert game.num_players() == Rules.parse(rules).players
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_openspiel_game_strings_states_and_the_engine_agree() -> None:
    pyspiel = pytest.importorskip("pyspiel", reason="needs binokel[rl]")
    import pickle

    from binokel.research.openspiel import engine_history

    game = pyspiel.load_game("binokel(rules=kreuz)")
    deal = random_playout("kreuz", 5)[-1]
    state = game.new_initial_state()
    for action in engine_history(deal):
        state.apply_action(action)
    assert state.is_terminal() and state.returns() == [float(s) for s in deal.scores]
    text = pyspiel.serialize_game_and_state(game, state)
    again_game, again = pyspiel.deserialize_game_and_state(text)
    assert str(again_game) == str(game) and str(again) == str(state) and again.returns() == state.returns()
    assert str(pickle.loads(pickle.dumps(state))) == str(state)
    changed = pyspiel.load_game("binokel", {"rules": "standard(target=1000,rounding=10)"})
    assert changed.rules.target == 1000 and changed.rules.rounding == 10
    # the information state is the seat's view (perfect recall); replaying it reaches the same record
    seen = json.loads(state.information_state_string(1))
    assert seen["seat"] == 1 and seen["scores"] == list(deal.scores)


def test_openspiel_mcts_plays_against_random() -> None:
    pyspiel = pytest.importorskip("pyspiel", reason="needs binokel[rl]")
    import numpy as np
    from open_spiel.python.algorithms import mcts
    from open_spiel.python.bots import uniform_random

    import binokel.research.openspiel  # noqa: F401

    game = pyspiel.load_game("binokel", {"rules": "classic40"})
    rng = np.random.RandomState(7)
    bots = [mcts.MCTSBot(game, 2.0, 8, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)]
    bots += [uniform_random.UniformRandomBot(seat, rng) for seat in (1, 2)]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 7)
    assert len(returns) == 3 and any(returns)


def test_openspiel_resampling_keeps_the_information_state_and_ismcts_plays() -> None:
    pyspiel = pytest.importorskip("pyspiel", reason="needs binokel[rl]")
    import numpy as np
    from open_spiel.python.algorithms import ismcts, mcts
    from open_spiel.python.bots import uniform_random

    import binokel.research.openspiel  # noqa: F401

    rng = np.random.RandomState(3)
    changed = checked = 0
    for rules in ("classic40", "kreuz", "four-sitout"):
        game = pyspiel.load_game("binokel", {"rules": rules})
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(outcomes, p=probs)))
                continue
            player = state.current_player()
            other = state.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(0.0, 1.0))
            assert other.information_state_string(player) == state.information_state_string(player)
            assert other.legal_actions() == state.legal_actions()
            changed += str(other) != str(state)
            checked += 1
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert checked > 40 and changed > checked // 2
    game = pyspiel.load_game("binokel", {"rules": "classic40"})
    bots = [ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), 2.0, 8, random_state=rng)]
    bots += [uniform_random.UniformRandomBot(seat, rng) for seat in (1, 2)]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 11)
    assert len(returns) == 3 and any(returns)


# ---------------------------------------------------------------------- self-play data

def test_selfplay_writes_replayable_records_with_the_features_of_each_decision(tmp_path: Path) -> None:
    out = tmp_path / "deals.jsonl"
    command = [sys.executable, "-m", "binokel", "selfplay", "--bots", "easy,medium,easy", "--deals", "3",
               "--seed", "9", "--out", str(out)]
    subprocess.run(command, check=True, capture_output=True, env=dict(os.environ))
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == 3
    for line in lines:
        state = replay_deal(line)  # the record part is a valid RECORDS.md deal
        assert list(state.scores) == line["scores"] and line["players"] == ["easy", "medium", "easy"]
        replay = State.new(state.rules, state.dealer).deal(
            [[features.CARDS[k] for k in hand] for hand in state.dealt], [features.CARDS[k] for k in state.tapp])
        for decision in line["decisions"]:
            seen = view(replay, decision["seat"])
            assert decision["x"] == [[i, v] for i, v in enumerate(features.observation(seen)) if v]
            assert decision["legal"] == features.legal_indices(seen) and decision["action"] in decision["legal"]
            assert decision["reward"] == line["scores"][decision["seat"]]
            action = features.action_of(decision["action"], seen)
            assert str(action) == decision["text"]
            replay = replay.apply(action)
        assert replay.is_over() and replay.scores == state.scores
    again = tmp_path / "again.jsonl"
    subprocess.run(command[:-1] + [str(again)], check=True, capture_output=True)
    assert again.read_text() == out.read_text()  # same seed, same data


def test_selfplay_arrays_match_the_lines(tmp_path: Path) -> None:
    np = pytest.importorskip("numpy", reason="needs binokel[rl]")
    from binokel.research.selfplay import Plan, load_arrays, write_deals

    path = tmp_path / "deals.jsonl"
    with path.open("w") as out:
        write_deals(Plan(("easy",), 2, 3, "classic40", 0.01), out)
    arrays = load_arrays(str(path))
    decisions = [d for line in path.read_text().splitlines() for d in json.loads(line)["decisions"]]
    assert arrays["x"].shape == (len(decisions), features.OBSERVATION_SIZE)
    for row, decision in enumerate(decisions):
        expected = np.zeros(features.OBSERVATION_SIZE, np.float32)
        for i, v in decision["x"]:
            expected[i] = v
        assert np.array_equal(arrays["x"][row], expected)
        assert sorted(arrays["mask"][row].nonzero()[0].tolist()) == decision["legal"]
        assert arrays["action"][row] == decision["action"]


def test_selfplay_refuses_bad_options() -> None:
    result = subprocess.run([sys.executable, "-m", "binokel", "selfplay", "--bots", "oracle"],
                            check=False, capture_output=True, text=True)
    assert result.returncode == 2 and "oracle" in result.stderr


# ---------------------------------------------------------------------- Ray

def test_tournament_on_a_local_ray_matches_a_local_run() -> None:
    pytest.importorskip("ray", reason="needs binokel[cluster] (Ray)")
    base = [sys.executable, "-m", "binokel", "tournament", "--bots", "easy,medium", "--deals", "2", "--seed", "3",
            "--json", "--quiet", "--jobs", "2"]
    reports = []
    for extra in ([], ["--cluster", "local"]):  # 'local' starts Ray with --jobs (2) CPUs
        done = subprocess.run(base + extra, check=False, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        report = json.loads(done.stdout)
        for entry in report["results"]:
            entry.pop("latency")  # thinking times are measured, not replayed
        reports.append(report)
    assert reports[0] == reports[1]
    assert reports[0]["pairs"][0]["n"] == 2


# ---------------------------------------------------------------------- the baseline

def test_behaviour_cloning_baseline_learns_and_plays_in_the_tournament(tmp_path: Path) -> None:
    pytest.importorskip("numpy", reason="needs binokel[rl]")
    import argparse

    from binokel import tournament
    from binokel.research.baseline import LinearPolicy, PolicyBot, agreement, register, train
    from binokel.research.selfplay import Plan, load_arrays, write_deals

    path = tmp_path / "easy.jsonl"
    with path.open("w") as out:
        write_deals(Plan(("easy",), 6, 2, "standard", 0.01), out)
    arrays = load_arrays(str(path))
    policy = train(arrays, epochs=30)
    assert agreement(policy, arrays) > agreement(LinearPolicy.zeros(), arrays) + 0.2
    weights = tmp_path / "linear.npz"
    policy.save(str(weights))
    again = LinearPolicy.load(str(weights))
    bot = PolicyBot(again)
    for state in random_playout("classic40", 8)[:-1]:
        seen = view(state, state.to_move)
        assert bot.choose(seen) in seen.legal_actions
    from binokel.ai import BOT_CLASSES

    register("bc-test", again)
    try:
        parser = argparse.ArgumentParser()
        tournament.add_arguments(parser)
        settings = tournament.settings_of(parser.parse_args(["--bots", "bc-test,easy", "--deals", "2", "--jobs", "1"]))
        report = tournament.report(settings, tournament.play_all(settings, progress=False))
    finally:
        del BOT_CLASSES["bc-test"]  # other tests list the levels
    assert report["pairs"][0]["n"] == 2 and report["bots"] == ["bc-test", "easy"]


def test_cluster_without_ray_is_a_one_line_error(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from binokel import tournament

    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    status = tournament.main(["--bots", "easy,easy", "--deals", "1", "--quiet", "--cluster", "local"])
    assert status == 2 and "binokel[cluster]" in capsys.readouterr().err
