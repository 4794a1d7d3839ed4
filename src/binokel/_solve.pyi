"""Types of the C search (``_solve.c``), for mypy."""

from collections.abc import Sequence

class Table:
    """The bounds found by searches of one deal's positions (trick starts), shared by them; keyed
    for one root's hands at a time (a search from another root empties it)."""

    def __len__(self) -> int: ...

def search(table: Table, base: Sequence[int], hands: Sequence[int], trick: Sequence[int],
           orders: Sequence[Sequence[int]], leader: int, best: int, alpha: int, beta: int, left: int, trump: int,
           mode: int, beat_led: bool, exemption: bool, side: Sequence[bool], gainer: Sequence[bool],
           melds: Sequence[int], pending: int, node_limit: int) -> tuple[int | None, int]: ...

def value(table: Table, base: Sequence[int], hands: Sequence[int], trick: Sequence[int],
          orders: Sequence[Sequence[int]], leader: int, best: int, high: int, probe: int, trump: int, mode: int,
          beat_led: bool, exemption: bool, side: Sequence[bool], gainer: Sequence[bool], melds: Sequence[int],
          pending: int, node_limit: int) -> tuple[int | None, int]: ...

def playout(table: Table, base: Sequence[int], hands: Sequence[int], trick: Sequence[int],
            orders: Sequence[Sequence[int]], leader: int, best: int, trump: int, mode: int, beat_led: bool,
            exemption: bool, side: Sequence[bool], gainer: Sequence[bool], melds: Sequence[int],
            pending: int) -> int: ...
