"""Optimal pairing of two lists: maximum bipartite matching (Hopcroft–Karp) and maximum-weight
assignment (the Hungarian method). Greedy pairing can miss a perfect match — with expected
``[a|b, a]`` and actual ``[a, b]`` a greedy pass pairs the first ``a`` and strands ``b`` — so
the matchers use these instead.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence

__all__ = ["max_matching", "max_weight_assignment"]

_INF = math.inf


def max_matching(left: int, right: int, edges: Sequence[Sequence[int]]) -> list[int]:
    """A maximum matching of a bipartite graph (Hopcroft–Karp, O(E·√V)).

    ``edges[i]`` lists the right vertices left vertex ``i`` may pair with, in order of
    preference (the result is deterministic for given inputs). Returns ``match`` with
    ``match[i]`` the right vertex paired with left ``i``, or -1.
    """
    if len(edges) != left:
        raise ValueError(f"edges must have one list per left vertex ({left}), got {len(edges)}")
    match_left = [-1] * left
    match_right = [-1] * right
    dist = [0.0] * left

    def bfs() -> bool:
        queue: deque[int] = deque()
        found = False
        for u in range(left):
            if match_left[u] == -1:
                dist[u] = 0
                queue.append(u)
            else:
                dist[u] = _INF
        while queue:
            u = queue.popleft()
            for v in edges[u]:
                w = match_right[v]
                if w == -1:
                    found = True
                elif dist[w] == _INF:
                    dist[w] = dist[u] + 1
                    queue.append(w)
        return found

    def dfs(u: int) -> bool:
        # Follows the BFS layers; recursion depth is at most min(left, right) + 1.
        for v in edges[u]:
            w = match_right[v]
            if w == -1 or (dist[w] == dist[u] + 1 and dfs(w)):
                match_left[u] = v
                match_right[v] = u
                return True
        dist[u] = _INF
        return False

    while bfs():
        for u in range(left):
            if match_left[u] == -1:
                dfs(u)
    return match_left


def max_weight_assignment(weights: Sequence[Sequence[float]]) -> list[int]:
    """Pair rows with columns to maximize the total weight (the Hungarian method, O(n²m)).

    ``weights`` is a rows × columns matrix. Every row is paired when rows <= columns; otherwise
    every column is. Returns ``pair`` with ``pair[row]`` its column, or -1 when unpaired.
    """
    rows = len(weights)
    if rows == 0:
        return []
    cols = len(weights[0])
    if any(len(r) != cols for r in weights):
        raise ValueError("weights must be a rectangular matrix")
    if cols == 0:
        return [-1] * rows
    if rows > cols:
        transposed = [[weights[r][c] for r in range(rows)] for c in range(cols)]
        by_col = max_weight_assignment(transposed)
        pair = [-1] * rows
        for c, r in enumerate(by_col):
            if r >= 0:
                pair[r] = c
        return pair
    top = max(max(r) for r in weights)
    # Minimize cost = top − weight; potentials u (rows) and v (columns), 1-based as in the
    # classic formulation, column 0 a sentinel.
    cost = [[top - w for w in r] for r in weights]
    u = [0.0] * (rows + 1)
    v = [0.0] * (cols + 1)
    owner = [0] * (cols + 1)
    way = [0] * (cols + 1)
    for i in range(1, rows + 1):
        owner[0] = i
        j0 = 0
        minv = [_INF] * (cols + 1)
        used = [False] * (cols + 1)
        while True:
            used[j0] = True
            i0 = owner[j0]
            delta = _INF
            j1 = 0
            for j in range(1, cols + 1):
                if not used[j]:
                    current = cost[i0 - 1][j - 1] - u[i0] - v[j]
                    if current < minv[j]:
                        minv[j] = current
                        way[j] = j0
                    if minv[j] < delta:
                        delta = minv[j]
                        j1 = j
            for j in range(cols + 1):
                if used[j]:
                    u[owner[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if owner[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            owner[j0] = owner[j1]
            j0 = j1
    pair = [-1] * rows
    for j in range(1, cols + 1):
        if owner[j]:
            pair[owner[j] - 1] = j - 1
    return pair
