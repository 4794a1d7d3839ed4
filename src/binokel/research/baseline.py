"""A small learning baseline (``binokel[rl]``): a linear softmax policy over the features
of :mod:`binokel.research.features`, trained by behaviour cloning on self-play data, and a bot that
plays any such policy in the tournament harness.

    binokel selfplay --bots medium --deals 1500 --out medium.jsonl
    python -m binokel.research.baseline train medium.jsonl --out linear.npz
    python -m binokel.research.baseline tournament linear.npz --bots linear,easy --deals 200

docs/research.md reports what it learns and how strong it is.

>>> import numpy as np
>>> policy = LinearPolicy.zeros()
>>> from binokel.state import State
>>> from binokel.view import view
>>> import random
>>> seen = view(State.new("standard", dealer=2).deal_random(random.Random(1)), 0)
>>> str(PolicyBot(policy).choose(seen))
'150'
"""

from __future__ import annotations

import argparse
import random
import sys
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from binokel.research import features
from binokel.action import Action
from binokel.view import SeatView


@dataclass
class LinearPolicy:
    """Logits = standardised features x weights + bias over the fixed action space;
    illegal actions masked. (Standardising matters: a bid is 0.15 in the features, a card 1.)"""

    weights: np.ndarray  # (OBSERVATION_SIZE, ACTIONS)
    bias: np.ndarray  # (ACTIONS,)
    mean: np.ndarray  # (OBSERVATION_SIZE,): subtracted from the features
    scale: np.ndarray  # (OBSERVATION_SIZE,): then multiplied (1 / standard deviation)

    @classmethod
    def zeros(cls) -> LinearPolicy:
        size = features.OBSERVATION_SIZE
        return cls(np.zeros((size, features.ACTIONS), np.float32), np.zeros(features.ACTIONS, np.float32),
                   np.zeros(size, np.float32), np.ones(size, np.float32))

    def inputs(self, x: Any) -> Any:
        return (np.asarray(x, np.float32) - self.mean) * self.scale

    def logits(self, x: Any, mask: Any) -> Any:
        z = self.inputs(x) @ self.weights + self.bias
        return np.where(mask, z, -np.inf)

    def act(self, seen: SeatView) -> int:
        """The most likely legal action index for ``seen``."""
        mask = np.zeros(features.ACTIONS, bool)
        mask[features.legal_indices(seen)] = True
        return int(np.argmax(self.logits(features.observation(seen), mask)))

    def save(self, path: str) -> None:
        np.savez(path, weights=self.weights, bias=self.bias, mean=self.mean, scale=self.scale)

    @classmethod
    def load(cls, path: str) -> LinearPolicy:
        data = np.load(path)
        return cls(data["weights"], data["bias"], data["mean"], data["scale"])


def train(arrays: dict[str, Any], epochs: int = 8, rate: float = 0.01, l2: float = 1e-5, batch: int = 512,
          seed: int = 0) -> LinearPolicy:
    """Behaviour cloning: minimise the cross-entropy of the masked softmax against the
    actions taken (Adam on minibatches; decisions with no index are left out)."""
    keep = arrays["action"] >= 0
    x, mask, y = arrays["x"][keep], arrays["mask"][keep], arrays["action"][keep]
    policy = LinearPolicy.zeros()
    policy.mean = x.mean(axis=0)
    std = x.std(axis=0)
    policy.scale = np.where(std > 1e-6, 1 / np.maximum(std, 1e-6), 0.0).astype(np.float32)
    inputs = policy.inputs(x)
    params = [policy.weights, policy.bias]
    moments = [np.zeros_like(p) for p in params]
    squares = [np.zeros_like(p) for p in params]
    rng = np.random.default_rng(seed)
    step = 0
    for _ in range(epochs):
        order = rng.permutation(len(y))
        for start in range(0, len(y), batch):
            rows = order[start:start + batch]
            z = np.where(mask[rows], inputs[rows] @ policy.weights + policy.bias, -np.inf)
            z -= z.max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            p[np.arange(len(rows)), y[rows]] -= 1.0  # d(cross-entropy)/d(logits)
            p /= len(rows)
            grads = [inputs[rows].T @ p + l2 * policy.weights, p.sum(axis=0)]
            step += 1
            for param, grad, m, v in zip(params, grads, moments, squares):
                m *= 0.9
                m += 0.1 * grad
                v *= 0.999
                v += 0.001 * grad * grad
                param -= rate * (m / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-8)
    return policy


def agreement(policy: LinearPolicy, arrays: dict[str, Any]) -> float:
    """How often the policy picks the action taken in the data (decisions with a choice)."""
    keep = (arrays["action"] >= 0) & (arrays["mask"].sum(axis=1) > 1)
    choice = np.argmax(policy.logits(arrays["x"][keep], arrays["mask"][keep]), axis=1)
    return float(np.mean(choice == arrays["action"][keep]))


class PolicyBot:
    """Plays a features-based policy (anything with ``act(view) -> index``) as a bot."""

    def __init__(self, policy: Any, seed: int | None = None, name: str = "linear") -> None:
        self.policy, self.name = policy, name

    def choose(self, view: SeatView, rng: random.Random | None = None, budget: float = 1.0) -> Action:
        return features.action_of(self.policy.act(view), view)


def register(name: str, policy: Any) -> None:
    """Make ``policy`` a bot level the tournament harness can seat (this process and the
    worker processes it forks; not Ray workers)."""
    from binokel.ai import BOT_CLASSES

    def make(seed: int | None = None) -> PolicyBot:
        return PolicyBot(policy, seed, name)

    BOT_CLASSES[name] = cast(Any, make)  # the harness calls BOT_CLASSES[level](seed)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m binokel.research.baseline", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("train", help="behaviour cloning on self-play data")
    p.add_argument("data", help="self-play JSON lines (binokel selfplay)")
    p.add_argument("--out", required=True, help="where to save the weights (.npz)")
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--holdout", type=float, default=0.1, help="share of deals kept out to measure agreement")
    p = sub.add_parser("tournament", help="binokel tournament with the policy seated as a bot level")
    p.add_argument("weights", help="weights saved by train")
    p.add_argument("--name", default="linear", help="the level name to use in --bots (default linear)")
    args, rest = parser.parse_known_args(argv)
    if args.command == "train":
        from binokel.research.selfplay import load_arrays

        arrays = load_arrays(args.data)
        cut = int(arrays["deal"].max() * (1 - args.holdout))
        fit = {k: v[arrays["deal"] <= cut] for k, v in arrays.items()}
        held = {k: v[arrays["deal"] > cut] for k, v in arrays.items()}
        policy = train(fit, epochs=args.epochs)
        policy.save(args.out)
        print(f"trained on {len(fit['action'])} decisions; agreement with the data: "
              f"{agreement(policy, fit):.3f} (training), {agreement(policy, held):.3f} (held-out deals)")
        return 0
    from binokel import tournament

    register(args.name, LinearPolicy.load(args.weights))
    return tournament.main(rest)


if __name__ == "__main__":
    sys.exit(main())
