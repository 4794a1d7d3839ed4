"""Root parallelism (binokel.ai.parallel): the worlds of one decision in several processes.

The parallel bots answer legal actions; the shares summed in the parent equal the same
shares evaluated one after the other; a bot stays serial where it may not have children;
no worker outlives its pool, its interpreter or a killed parent."""

from __future__ import annotations

import argparse
import logging
import math
import multiprocessing
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import pytest
from ai_support import random_states

from binokel.ai import BOT_CLASSES, make_bot, parallel
from binokel.ai.bots import HardBot, SoloistSimulation, Tally
from binokel.ai.expert import ExpertBot
from binokel.state import Phase, State
from binokel.tournament import BotSpec
from binokel.view import SeatView, view

BUDGET = 0.02
FOREVER = math.inf


def parallel_bot(level: str, jobs: int = 2, seed: int = 1) -> Any:
    bot = make_bot(level, seed=seed)
    bot.JOBS = jobs
    return bot


def first_view(rules: str, seed: int, wanted: Callable[[State], bool]) -> SeatView:
    """The view of the seat to move in the first state of random deals that is ``wanted``."""
    for state in random_states(rules, random.Random(seed), 40):
        if not state.is_over() and len(state.legal_actions()) > 1 and wanted(state):
            return view(state, state.to_move)
    raise AssertionError(f"no such state in 40 random deals of {rules}")


def cards_left(state: State) -> int:
    return sum(hand.bit_count() for hand in state.hands)


@pytest.fixture
def no_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """No deadline: the effort alone decides how many worlds each share evaluates."""
    monkeypatch.setattr(HardBot, "deadline", staticmethod(lambda budget: FOREVER))


@pytest.mark.parametrize("rules", ["standard", "kreuz", "four-sitout", "club"])
def test_parallel_bots_answer_legal_actions(rules: str, caplog: pytest.LogCaptureFixture) -> None:
    bots = [parallel_bot("hard"), parallel_bot("expert")]
    rng = random.Random(rules)
    phases = set()
    for i, state in enumerate(random_states(rules, rng, 1)):
        if state.is_over() or len(state.legal_actions()) < 2:
            continue
        seen = view(state, state.to_move)
        assert bots[i % 2].choose(seen, rng, BUDGET) in seen.legal_actions
        phases.add(state.phase)
    assert Phase.AUCTION in phases and Phase.PLAY in phases
    assert parallel.worker_pids(), "the shares were not sent to worker processes"
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], "a share was lost"


SITUATIONS: list[tuple[str, str, Callable[[State], bool], str, tuple[int, ...]]] = [
    ("hard", "standard", lambda s: s.phase is Phase.PLAY and cards_left(s) > 20, "play_tally", ()),
    ("hard", "kreuz", lambda s: s.phase is Phase.PLAY and cards_left(s) <= 12, "play_tally", ()),
    ("expert", "standard", lambda s: s.phase is Phase.PLAY and len(s.played) >= 2, "play_tally", ()),
    ("expert", "four-sitout", lambda s: s.phase is Phase.PLAY and cards_left(s) <= 9, "solve_tally", (100_000,)),
    ("hard", "standard", lambda s: s.phase is Phase.DISCARD, "plan_tally", ()),
    ("expert", "kreuz", lambda s: s.phase is Phase.DISCARD, "plan_tally", ()),
    ("hard", "standard", lambda s: s.phase is Phase.SURRENDER, "surrender_tally", ()),
    ("expert", "club", lambda s: s.phase is Phase.AUCTION and len(s.calls) >= 2, "simulate", ()),
]


@pytest.mark.parametrize("level, rules, wanted, method, extra", SITUATIONS,
                         ids=[f"{level}-{rules}-{method}" for level, rules, _, method, _ in SITUATIONS])
def test_the_parallel_tally_is_the_sum_of_the_same_shares_in_series(
        level: str, rules: str, wanted: Callable[[State], bool], method: str, extra: tuple[int, ...],
        no_clock: None) -> None:
    """Each share is seeded from the decision's generator, so the shares evaluated one after
    the other in this process add up to exactly what the worker processes returned (``extra``:
    the decision's plain-data arguments after the deadline, the solver's node limit)."""
    seen = first_view(rules, 11, wanted)
    bot = parallel_bot(level, jobs=3)
    count = 6
    together = parallel.evaluate(bot, getattr(bot, method), seen, random.Random(5), count, FOREVER, *extra)
    assert parallel.worker_pids()
    shares = [bot.share(method, seen, random.Random(seed), count, FOREVER, *extra)
              for seed in parallel.shares(random.Random(5), 3)]
    in_series = shares[0] + shares[1] + shares[2]
    assert together.worlds == in_series.worlds > count
    if isinstance(together, SoloistSimulation):
        assert together.reach == in_series.reach
        assert [(p.points, p.melds, p.won, p.broken) for p in together.results] \
            == [(p.points, p.melds, p.won, p.broken) for p in in_series.results]
    else:
        assert isinstance(together, Tally)
        assert together == in_series


def test_one_job_is_the_serial_search_with_the_decision_s_generator(no_clock: None) -> None:
    seen = first_view("standard", 3, lambda s: s.phase is Phase.PLAY)
    bot = parallel_bot("hard", jobs=1)
    assert parallel.evaluate(bot, bot.play_tally, seen, random.Random(2), 5, FOREVER) \
        == bot.play_tally(seen, random.Random(2), 5, FOREVER)


@pytest.mark.parametrize("level", ["hard", "expert"])
def test_the_same_seed_and_jobs_give_the_same_decision(level: str, no_clock: None) -> None:
    for seed, wanted in enumerate([lambda s: s.phase is Phase.PLAY, lambda s: s.phase is Phase.AUCTION]):
        seen = first_view("standard", seed, wanted)
        answers = {str(parallel_bot(level).choose(seen, random.Random(9), BUDGET)) for _ in range(2)}
        assert len(answers) == 1


def test_two_jobs_evaluate_twice_the_worlds(no_clock: None) -> None:
    seen = first_view("standard", 4, lambda s: s.phase is Phase.PLAY)
    serial, twice = parallel_bot("hard", jobs=1), parallel_bot("hard", jobs=2)
    serial.choose(seen, random.Random(1), BUDGET)
    twice.choose(seen, random.Random(1), BUDGET)
    assert twice.last_worlds == 2 * serial.last_worlds > 0


def test_only_the_standard_levels_outside_daemons_and_workers_go_parallel() -> None:
    class Mine(HardBot):
        pass

    mine = Mine()
    mine.JOBS = 2
    assert parallel.jobs_of(parallel_bot("hard", jobs=2)) == 2
    assert parallel.jobs_of(parallel_bot("expert", jobs=3)) == 3
    assert parallel.jobs_of(parallel_bot("expert", jobs=99)) == parallel.MAX_JOBS
    assert parallel.jobs_of(mine) == 1  # a worker could not rebuild it from its level
    oracle = make_bot("oracle")
    oracle.JOBS = 2  # type: ignore[attr-defined]
    assert parallel.jobs_of(oracle) == 1  # not marked rebuildable: its search needs the true deal
    assert parallel.jobs_of(make_bot("hard")) == 1  # the default: serial


def _in_a_daemon(results: Any) -> None:
    bot = parallel_bot("hard")
    seen = first_view("standard", 2, lambda s: s.phase is Phase.PLAY)
    action = bot.choose(seen, random.Random(1), BUDGET)
    results.put((multiprocessing.current_process().daemon, parallel.jobs_of(bot), action in seen.legal_actions,
                 parallel.worker_pids(), len(multiprocessing.active_children())))


def test_a_bot_in_a_daemonic_process_stays_serial() -> None:
    """A daemonic process may not have children (the server's workers are daemonic): the
    bot searches alone there, silently."""
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    process = context.Process(target=_in_a_daemon, args=(results,), daemon=True)
    process.start()
    try:
        assert results.get(timeout=60) == (True, 1, True, [], 0)
    finally:
        process.join(10)


def test_no_worker_remains_after_the_pool_is_closed() -> None:
    seen = first_view("kreuz", 1, lambda s: s.phase is Phase.PLAY)
    parallel_bot("hard", jobs=3).choose(seen, random.Random(1), BUDGET)
    pids = parallel.worker_pids()
    assert len(pids) == 2 and os.getpid() not in pids
    parallel.close()
    assert parallel.worker_pids() == []
    assert _ended(pids), "a worker outlived its pool"
    parallel_bot("hard").choose(seen, random.Random(1), BUDGET)  # the next decision starts a new pool
    assert len(parallel.worker_pids()) == 1


DECIDE = """
import random, sys, time
from binokel.ai import make_bot, parallel
from binokel.state import State
from binokel.view import view

if __name__ == "__main__":
    state = State.new("standard", dealer=2).deal_random(random.Random(1)).apply_text("150")
    bot = make_bot("expert", seed=1)
    bot.JOBS = 2
    bot.choose(view(state, 1), random.Random(1), 0.02)
    print(" ".join(map(str, parallel.worker_pids())), flush=True)
    time.sleep(float(sys.argv[1]))
"""


def _decide(seconds: float) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", DECIDE, str(seconds)], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_the_interpreter_exits_without_waiting_and_leaves_no_worker() -> None:
    program = _decide(0)
    try:
        assert program.stdout is not None
        pids = [int(p) for p in program.stdout.readline().split()]
        assert len(pids) == 1
        assert program.wait(30) == 0
    finally:
        program.kill()
    assert _ended(pids), "a worker outlived the interpreter"


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_workers_end_when_their_parent_is_killed() -> None:
    program = _decide(60)
    try:
        assert program.stdout is not None
        pids = [int(p) for p in program.stdout.readline().split()]
        assert len(pids) == 1 and not _ended(pids, 0)
        program.kill()
        program.wait(10)
    finally:
        program.kill()
    assert _ended(pids), "a worker outlived its killed parent"


def test_jobs_is_a_bot_option_of_the_tournament_and_of_the_terminal() -> None:
    assert BotSpec.parse("expert:jobs=2").make(1).JOBS == 2
    assert BOT_CLASSES["hard"].JOBS == ExpertBot.JOBS == 1
    from binokel.terminal import add_arguments
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert parser.parse_args(["--jobs", "3"]).jobs == 3
    assert parser.parse_args([]).jobs is None  # every core, decided when the game starts
    with pytest.raises(SystemExit):
        parser.parse_args(["--jobs", "0"])


def _ended(pids: list[int], seconds: float = 10.0) -> bool:
    """Have all ``pids`` ended within ``seconds``? (A zombie whose parent is gone counts as ended.)"""
    deadline = time.monotonic() + seconds
    while any(_running(pid) for pid in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False
