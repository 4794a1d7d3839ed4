"""Binokel as an OpenSpiel game (``pip install 'binokel[rl]'``): importing this module
registers the Python game ``binokel`` with :mod:`pyspiel`.

>>> import pyspiel
>>> import binokel.research.openspiel
>>> game = pyspiel.load_game("binokel", {"rules": "classic40"})
>>> game.num_players(), game.num_distinct_actions()
(3, 89)
>>> state = game.new_initial_state()
>>> state.is_chance_node(), len(state.chance_outcomes())
(True, 3)

Parameters: ``rules`` (a rule-set name such as ``classic40``, or a rule text with changed
options such as ``standard(target=1000)``; OpenSpiel's game strings cannot hold the
parentheses of the latter, so pass it in a dict: ``load_game("binokel", {"rules": ...})``),
and ``max_bid`` (default 1000): bids above it are not offered, so that every deal has a
bounded length, as OpenSpiel needs.

One OpenSpiel episode is one deal; the returns are the deal scores (docs/rules.md section 6).

Chance: the first chance node draws the dealer (uniform over the seats), then one chance
node per card deals the deck card by card (outcome = the card kind, probability = copies
left / cards left): seat 0's hand first, then seat 1's and so on, the Tapp last. Dealing
card by card in this order gives every deal the same probability as a shuffled deck dealt
in packets, and keeps ``chance_outcomes`` short and exact.

Players' actions are the fixed indices of :mod:`binokel.research.features` (bids are relative: index
1 is the lowest bid allowed now). Observations and information states come from
:func:`binokel.view.view` only: the tensor is :func:`binokel.research.features.observation`; the
information-state string is the view as canonical JSON (it holds the whole public history,
so it has perfect recall); the observation string is a short text of the same view.
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pyspiel

from binokel.research import features
from binokel.card import CARDS
from binokel.record import deal_record, replay_deal
from binokel.rules import Rules
from binokel.state import State
from binokel.view import SeatView, view

DEFAULT_MAX_BID = 1000

_GAME_TYPE = pyspiel.GameType(
    short_name="binokel",
    long_name="Binokel",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=6,
    min_num_players=3,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"rules": "standard", "max_bid": DEFAULT_MAX_BID},
)


def _game_info(rules: Rules, max_bid: int) -> pyspiel.GameInfo:
    deck = len(rules.deck_kinds)
    auction = (max(0, max_bid - rules.min_bid)) // 10 + 1 + rules.players  # every call raises or passes for good
    decisions = auction + 1 + rules.tapp_size + 2 + rules.active * rules.hand_size
    worst = max(2 * max_bid, rules.durch, rules.open_durch, rules.hand_durch, rules.bettel) + 1000
    return pyspiel.GameInfo(
        num_distinct_actions=features.ACTIONS,
        max_chance_outcomes=max(len(CARDS), rules.players),
        num_players=rules.players,
        min_utility=-float(worst),
        max_utility=float(worst + 5000),  # card points 250 + melds: far beyond any deal
        utility_sum=None,
        max_game_length=1 + deck + decisions,
    )


class BinokelGame(pyspiel.Game):  # type: ignore[misc]
    """The game object OpenSpiel loads as ``binokel``."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        self.rules = Rules.parse(str(params.get("rules", "standard")))
        self.max_bid = int(params.get("max_bid", DEFAULT_MAX_BID))
        if self.max_bid < self.rules.min_bid:
            raise ValueError(f"max_bid must be at least the minimum bid {self.rules.min_bid}, not {self.max_bid}")
        super().__init__(_GAME_TYPE, _game_info(self.rules, self.max_bid), params)

    def new_initial_state(self) -> BinokelState:
        return BinokelState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> BinokelObserver:
        return BinokelObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class _Shared:
    """Holds an immutable engine value: OpenSpiel clones states with ``copy.deepcopy``, and
    the copies may share what never changes."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __deepcopy__(self, memo: dict[int, Any]) -> _Shared:
        return self

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # OpenSpiel pickles a state's attributes; an engine state travels as its record.
        if isinstance(self.value, State):
            return _replayed, (deal_record(self.value),)
        return _Shared, (self.value,)


class _Views:
    """The views of one engine state, computed once per seat (a view is the costly part
    of a step); clones share it, pickles drop it."""

    __slots__ = ("engine", "vectors", "views")

    def __init__(self, engine: State | None = None) -> None:
        self.engine = engine
        self.views: dict[int, SeatView] = {}
        self.vectors: dict[int, list[float]] = {}

    def __deepcopy__(self, memo: dict[int, Any]) -> _Views:
        return self

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return _Views, ()


def _replayed(record: dict[str, Any]) -> _Shared:
    return _Shared(replay_deal(record))


class BinokelState(pyspiel.State):  # type: ignore[misc]
    """One deal: chance steps deal the dealer and the cards, then the engine state takes over."""

    def __init__(self, game: BinokelGame) -> None:
        super().__init__(game)
        self._rules = _Shared(game.rules)
        self.max_bid = game.max_bid
        self.dealer: int | None = None
        self.dealt: list[int] = []  # card kinds dealt so far, in slot order
        self._engine = _Shared(None)
        self._views = _Views()

    @property
    def rules(self) -> Rules:
        rules: Rules = self._rules.value
        return rules

    @property
    def engine(self) -> State | None:
        """The engine's state of the deal once every card is dealt (None while dealing)."""
        engine: State | None = self._engine.value
        return engine

    @engine.setter
    def engine(self, value: State) -> None:
        self._engine = _Shared(value)

    # ------------------------------------------------------------------ chance

    def _slots(self) -> list[int]:
        """The owner of each dealing slot: seat numbers, then -1 for the Tapp."""
        assert self.dealer is not None
        undealt = State.new(self.rules, self.dealer)
        slots = [seat for seat in range(self.rules.players) for _ in range(undealt.hand_size_of(seat))]
        return slots + [-1] * self.rules.tapp_size

    def current_player(self) -> int:
        if self.engine is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.engine.is_over():
            return int(pyspiel.PlayerId.TERMINAL)
        assert self.engine.to_move is not None
        return self.engine.to_move

    def chance_outcomes(self) -> list[tuple[int, float]]:
        assert self.engine is None
        if self.dealer is None:
            return [(seat, 1 / self.rules.players) for seat in range(self.rules.players)]
        left = [0] * len(CARDS)
        for kind in self.rules.deck_kinds:
            left[kind] += 1
        for kind in self.dealt:
            left[kind] -= 1
        total = sum(left)
        return [(kind, copies / total) for kind, copies in enumerate(left) if copies]

    def _apply_action(self, action: int) -> None:
        if self.engine is None:
            if self.dealer is None:
                self.dealer = int(action)
                return
            self.dealt.append(int(action))
            slots = self._slots()
            if len(self.dealt) == len(slots):
                hands: list[list[Any]] = [[] for _ in range(self.rules.players)]
                tapp: list[Any] = []
                for owner, kind in zip(slots, self.dealt):
                    (tapp if owner < 0 else hands[owner]).append(CARDS[kind])
                self.engine = State.new(self.rules, self.dealer).deal(hands, tapp)
            return
        seen = self.seat_view(self.current_player())
        assert seen is not None
        if action not in self._legal(seen):
            raise ValueError(f"action {action} ({features.action_text(action)}) is not legal now")
        self.engine = self.engine.apply(features.action_of(action, seen))

    # ------------------------------------------------------------------ players

    def _legal(self, seen: SeatView) -> list[int]:
        return features.legal_indices(seen, max_bid=self.max_bid)

    def _legal_actions(self, player: int) -> list[int]:
        seen = self.seat_view(player)
        assert seen is not None
        return self._legal(seen)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"dealer {action}" if self.dealer is None else f"deal {CARDS[action]}"
        seen = self.seat_view(player) if self.engine is not None and self.engine.to_move == player else None
        if seen is not None:
            return str(features.action_of(action, seen))
        return features.action_text(action)

    def is_terminal(self) -> bool:
        return self.engine is not None and self.engine.is_over()

    def returns(self) -> list[float]:
        if self.engine is None or self.engine.scores is None:
            return [0.0] * self.rules.players
        return [float(score) for score in self.engine.scores]

    def seat_view(self, player: int) -> SeatView | None:
        """What ``player`` may know now (None until every card is dealt)."""
        engine = self.engine
        if engine is None:
            return None
        if self._views.engine is not engine:
            self._views = _Views(engine)
        views = self._views.views
        seen = views.get(player)
        if seen is None:
            seen = views[player] = view(engine, player)
        return seen

    def seat_features(self, player: int) -> list[float] | None:
        """:func:`binokel.research.features.observation` of ``player``'s view (None while dealing)."""
        seen = self.seat_view(player)
        if seen is None:
            return None
        vectors = self._views.vectors
        vector = vectors.get(player)
        if vector is None:
            vector = vectors[player] = features.observation(seen)
        return vector

    def resample_from_infostate(self, player: int, sampler: Any = None) -> BinokelState:
        """A state ``player`` cannot tell from this one, with the hidden cards drawn anew
        (for ISMCTS): the bots' sampler of :mod:`binokel.ai.sample` places them consistently
        with everything the seat knows (voids, shown melds), and the public actions are replayed.
        ``sampler`` (a pyspiel sampler, called for a number in [0, 1)) seeds the draw."""
        from binokel.ai.knowledge import Knowledge
        from binokel.ai.sample import build_state, sample_world

        seen = self.seat_view(player)
        game = self.get_game()
        fresh: BinokelState = game.new_initial_state()
        if seen is None:  # still dealing: the seat knows only the dealer
            if self.dealer is not None:
                fresh.apply_action(self.dealer)
            return fresh
        rng = random.Random(int(sampler() * 2**53) if sampler is not None else None)
        engine = build_state(seen, sample_world(Knowledge.from_view(seen), rng))
        for action in engine_history(engine):
            fresh.apply_action(action)
        return fresh

    def __str__(self) -> str:
        if self.engine is None:
            return f"dealing: dealer {self.dealer}, {len(self.dealt)} cards dealt"
        engine = self.engine
        hands = " | ".join(" ".join(map(str, engine.hand(seat))) for seat in range(engine.players))
        calls = " ".join(map(str, engine.calls))
        tricks = " / ".join(" ".join(map(str, t.cards)) for t in engine.tricks)
        return (f"{engine.rules.text} dealer {engine.dealer} phase {engine.phase.value}\nhands: {hands}\n"
                f"auction: {calls}\ntricks: {tricks}\nscores: {engine.scores}")


class BinokelObserver:
    """Observations from one seat's view (OpenSpiel's PyObserver interface)."""

    def __init__(self, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, not {params!r}")
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info:
            raise ValueError("binokel observes one seat's private and public information (the seat's view)")
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.tensor = np.zeros(features.OBSERVATION_SIZE, np.float32)
        self.dict = {name: self.tensor[features.OFFSETS[name]:features.OFFSETS[name] + size]
                     for name, size, _ in features.FIELDS}

    def set_from(self, state: BinokelState, player: int) -> None:
        vector = state.seat_features(player)
        if vector is None:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = vector

    def string_from(self, state: BinokelState, player: int) -> str:
        seen = state.seat_view(player)
        if seen is None:
            return f"seat {player}: dealing (dealer {state.dealer})"
        if self.perfect_recall:
            return json.dumps(seen.to_json(), sort_keys=True, separators=(",", ":"))
        trick = " ".join(map(str, seen.trick.cards)) or "-"
        return (f"seat {player} phase {seen.phase} hand {' '.join(map(str, seen.hand))} "
                f"auction {' '.join(map(str, seen.auction)) or '-'} soloist {seen.soloist} bid {seen.bid} "
                f"game {seen.game} "
                f"trick {trick} tricks {list(seen.tricks_won)} points {list(seen.trick_points)}")


def engine_history(state: State) -> list[int]:
    """The OpenSpiel action history that reaches the engine ``state`` (a dealt deal): the
    dealer, the cards slot by slot, then the actions. For tools and tests.

    >>> import random
    >>> game = pyspiel.load_game("binokel")
    >>> deal = State.new("standard", dealer=1).deal_random(random.Random(4)).apply_text("150")
    >>> spiel = game.new_initial_state()
    >>> for action in engine_history(deal):
    ...     spiel.apply_action(action)
    >>> spiel.engine.calls == deal.calls, spiel.current_player()
    (True, 0)
    """
    from binokel.record import actions_of

    history = [state.dealer]
    for seat in range(state.players):
        history += list(state.dealt[seat])
    history += list(state.tapp)
    replay = State.new(state.rules, state.dealer).deal([[CARDS[k] for k in hand] for hand in state.dealt],
                                                        [CARDS[k] for k in state.tapp])
    for action in actions_of(state):
        mover = replay.to_move
        assert mover is not None
        index = features.index_of(action, view(replay, mover))
        if index is None:
            raise ValueError(f"{action} is beyond the bids the action space offers")
        history.append(index)
        replay = replay.apply(action)
    return history


pyspiel.register_game(_GAME_TYPE, BinokelGame)

__all__ = ["DEFAULT_MAX_BID", "BinokelGame", "BinokelObserver", "BinokelState", "engine_history"]
