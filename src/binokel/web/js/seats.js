// This browser's seat token of a game, for the help and review requests (friends.js keeps them).

import { seatOf } from "./friends.js";

export const tokenOf = (id) => seatOf(id)?.token ?? null;
