"""For researchers and tools around the game: the observation and action encoding
(:mod:`~binokel.research.features`), the PettingZoo environment and the OpenSpiel game built
on it, self-play data, a behaviour-cloned baseline, and tournaments on a Ray cluster.

None of it is part of the core: it reads the game only through ``view(state, seat)``, and
the core never imports it. See docs/research.md.
"""
