"""Binokel as a PettingZoo AEC environment (``pip install 'binokel[rl]'``).

>>> from binokel.research.pettingzoo import env
>>> table = env(rules="classic40")
>>> table.reset(seed=1)
>>> observation, reward, terminated, truncated, info = table.last()
>>> observation["observation"].shape, int(observation["action_mask"].sum())
((736,), 1)
>>> for agent in table.agent_iter():
...     observation, reward, terminated, truncated, info = table.last()
...     action = None if terminated else int(observation["action_mask"].nonzero()[0][0])
...     table.step(action)
>>> table.agents
[]

Agents are ``seat_0`` .. ``seat_{n-1}`` (seat numbers as in the rules: forehand is the
seat after the dealer). Each agent observes ``{"observation": float32 vector,
"action_mask": int8 vector}`` built by :mod:`binokel.research.features` from its
:func:`~binokel.view.view` only; the mask is all zeros except for the agent to move.

One episode is one deal by default (the reward is the deal score, docs/rules.md section 6;
with four at the table and the dealer sitting out, that seat is not an agent of the
deal). With ``episode="game"`` an episode is a whole game to the target: ``reward="score"``
pays each deal's score when it ends, ``reward="win"`` pays 1 to the winner (every member
of the winning team) and 0 to the others at the end. ``scale`` divides every reward.

Binokel is turn-based, so PettingZoo's ``aec_to_parallel`` does not apply; for code
written against the parallel API, :func:`parallel_env` wraps the AEC environment with
``turn_based_aec_to_parallel`` (every step, the actions of the seats not to move are ignored).
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from binokel.research import features
from binokel.game import Game
from binokel.rules import Rules
from binokel.state import State
from binokel.view import SeatView, view

EPISODES = ("deal", "game")
REWARDS = ("score", "win")


class BinokelEnv(AECEnv):  # type: ignore[misc]
    """The raw environment (see the module's description); use :func:`env` for the checked one."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["human", "ansi"], "name": "binokel_v0",
                                          "is_parallelizable": False}

    def __init__(self, rules: Rules | str = "standard", episode: str = "deal", reward: str = "score",
                 scale: float = 1.0, render_mode: str | None = None) -> None:
        super().__init__()
        if episode not in EPISODES:
            raise ValueError(f"episode must be one of {', '.join(EPISODES)}, not {episode!r}")
        if reward not in REWARDS or (reward == "win" and episode == "deal"):
            raise ValueError(f"reward must be 'score' (or 'win' with episode='game'), not {reward!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of human, ansi, not {render_mode!r}")
        self.rules = Rules.parse(rules) if isinstance(rules, str) else rules
        self.episode, self.reward_kind, self.scale, self.render_mode = episode, reward, scale, render_mode
        self.possible_agents = [f"seat_{seat}" for seat in range(self.rules.players)]
        low, high = features.bounds()
        observation_space = spaces.Dict({
            "observation": spaces.Box(np.array(low, np.float32), np.array(high, np.float32), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (features.ACTIONS,), dtype=np.int8),
        })
        action_space = spaces.Discrete(features.ACTIONS)
        self.observation_spaces = {agent: observation_space for agent in self.possible_agents}
        self.action_spaces = {agent: action_space for agent in self.possible_agents}
        self._rng = random.Random()
        self._game: Game | None = None
        self._state: State | None = None
        self._views_of: State | None = None
        self._views: dict[str, SeatView] = {}
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> spaces.Space:  # type: ignore[type-arg]
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:  # type: ignore[type-arg]
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ state

    @property
    def state_now(self) -> State:
        """The engine state of the deal in progress (for tools and tests; agents see views)."""
        if self._state is None:
            raise RuntimeError("call reset() first")
        return self._state

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)
        dealer = self._rng.randrange(self.rules.players)
        if self.episode == "game":
            self._game = Game.new(self.rules, first_dealer=dealer).deal_random(self._rng)
            self._state = self._game.current
            self.agents = self.possible_agents[:]
        else:
            self._game = None
            self._state = State.new(self.rules, dealer).deal_random(self._rng)
            out = self._state.sitting_out
            self.agents = [a for seat, a in enumerate(self.possible_agents) if seat != out]
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self._agent_to_move()

    def _agent_to_move(self) -> str:
        seat = self.state_now.to_move
        return self.possible_agents[seat] if seat is not None and seat >= 0 else self.agents[0]

    def seat_view(self, agent: str) -> SeatView:
        """What ``agent`` may know now: the only source of its observation."""
        state = self.state_now
        if self._views_of is not state:  # a view is the costly part of a step: once per seat and state
            self._views_of, self._views = state, {}
        seen = self._views.get(agent)
        if seen is None:
            seen = self._views[agent] = view(state, self.possible_agents.index(agent))
        return seen

    def observe(self, agent: str) -> dict[str, Any]:
        seen = self.seat_view(agent)
        totals = self._game.totals if self._game is not None else None
        vector = np.asarray(features.observation(seen, totals), dtype=np.float32)
        mask = np.zeros(features.ACTIONS, dtype=np.int8)
        mask[features.legal_indices(seen)] = 1
        return {"observation": vector, "action_mask": mask}

    # ------------------------------------------------------------------ stepping

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to move: None is only for agents whose episode has ended")
        seen = self.seat_view(agent)
        index = int(action)
        if index not in features.legal_indices(seen):
            raise ValueError(f"action {index} ({features.action_text(index) if 0 <= index < features.ACTIONS else '?'})"
                             f" is not legal for {agent} now")
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        move = features.action_of(index, seen)
        if self._game is not None:
            self._step_game(move)
        else:
            self._state = self.state_now.apply(move)
            if self._state.is_over():
                self._pay(self._state.scores)
                self.terminations = {a: True for a in self.agents}
        self.agent_selection = self._agent_to_move()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _step_game(self, move: Any) -> None:
        assert self._game is not None
        game = self._game.apply(move)
        deal = game.deals[len(self._game.deals) - 1]  # the deal just played (a new one may follow)
        if deal.is_over() and self.reward_kind == "score":
            self._pay(deal.scores)
        if game.is_over():
            if self.reward_kind == "win":
                self._pay([1 if game.winner == self.rules.team_of(seat) else 0 for seat in range(self.rules.players)])
            self.terminations = {a: True for a in self.agents}
        elif game.needs_deal():
            game = game.deal_random(self._rng)
        self._game, self._state = game, game.current

    def _pay(self, amounts: Any) -> None:
        for seat, amount in enumerate(amounts):
            agent = self.possible_agents[seat]
            if agent in self.rewards:
                self.rewards[agent] = amount / self.scale

    # ------------------------------------------------------------------ the rest

    def render(self) -> str | None:
        """The public table and the hand of the seat to move (``ansi`` returns the text)."""
        if self.render_mode is None:
            return None
        state = self.state_now
        seat = state.to_move if state.to_move is not None and state.to_move >= 0 else 0
        seen = view(state, seat)
        lines = [f"{state.rules.text}  dealer {state.dealer}  phase {seen.phase}  to move {seen.to_move}",
                 f"auction: {' '.join(map(str, seen.auction)) or '-'}  soloist {seen.soloist}  bid {seen.bid}  "
                 f"game {seen.game}",
                 f"trick: {' '.join(map(str, seen.trick.cards)) or '-'}  tricks won {list(seen.tricks_won)}",
                 f"seat {seat} holds: {' '.join(map(str, seen.hand))}"]
        if seen.scores is not None:
            lines.append(f"scores: {list(seen.scores)}")
        text = "\n".join(lines)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass


def raw_env(rules: Rules | str = "standard", **options: Any) -> BinokelEnv:
    """The environment without PettingZoo's checking wrappers."""
    return BinokelEnv(rules, **options)


def env(rules: Rules | str = "standard", **options: Any) -> AECEnv:
    """The AEC environment for ``rules`` (a rule-set name or text), with PettingZoo's
    checks of action bounds and call order. Options: ``episode``, ``reward``, ``scale``,
    ``render_mode`` (see the module's description)."""
    wrapped: AECEnv = wrappers.AssertOutOfBoundsWrapper(raw_env(rules, **options))
    return wrappers.OrderEnforcingWrapper(wrapped)


def parallel_env(rules: Rules | str = "standard", **options: Any) -> Any:
    """The parallel-API form (``turn_based_aec_to_parallel``): each step takes a dict of
    actions and applies the one of the seat to move."""
    return turn_based_aec_to_parallel(env(rules, **options))


__all__ = ["BinokelEnv", "env", "parallel_env", "raw_env"]
