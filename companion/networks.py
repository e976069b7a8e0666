"""Mycelium networks: same-colour paths joined across tile sides (rulebook 4.a.1).

"MYCELIUM NETWORK: They are all the mycelia OF THE SAME COLOR that are continuously
connected, considering all the ramifications that are formed."  The graph's nodes are the
paths of placed tiles, ``(space, path index)``, plus one node per spore,
``(space, SPORE)``.  Two path nodes are joined when both paths carry the same colour on the
shared side of neighbouring tiles.  A spore is joined to every path facing it, of any colour,
but it is an end point: it never joins two networks.  Components are found with networkx;
the constrained walks of the rules (around meeples, up to spores) are a plain breadth-first
search over networkx's adjacency.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from functools import cached_property

import networkx as nx

from companion import tiles as tilecodes
from companion.hexgrid import Hex, opposite
from companion.position import Position

SPORE = -1
"""Path index used for spore nodes: ``(space, SPORE)``."""

Node = tuple[Hex, int]


@dataclass(frozen=True)
class Network:
    """One mycelium network: its colour, the path nodes in it, and the spaces it covers.

    ``spores`` lists the colours of the spores it touches.
    """

    color: str
    nodes: frozenset[Node]
    spaces: frozenset[Hex]
    spores: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.spaces)


class MyceliumGraph:
    """The networks of one position.  Build once per position; queries are cheap.

    ``graph`` is a :class:`networkx.Graph` of every path and spore node; each node has a
    ``color`` attribute (the path colour, ``None`` for spores, which also carry ``owner``)
    and each edge the colour it joins.  ``colored[c]`` is the subgraph of colour ``c``'s
    paths alone, whose connected components are the networks.
    """

    def __init__(self, position: Position):
        # a snapshot, not the position: positions change in place, and a graph is shared by
        # every position with the same tiles and spores (:meth:`of`)
        self._tiles = tiles = dict(position.tiles)
        self._spore_at = {s.at: c for c, s in position.spores.items() if s is not None and s.at is not None}
        parsed = {h: tilecodes.parse(code) for h, code in tiles.items()}
        nodes: dict[str, list[Node]] = {c: [] for c in tilecodes.COLORS.values()}
        edges: dict[str, list[tuple[Node, Node]]] = {c: [] for c in tilecodes.COLORS.values()}
        for h, tile in parsed.items():
            for i, p in enumerate(tile.paths):
                nodes[p.color].append((h, i))
                for e in p.edges:
                    n = h.neighbor(e)
                    other = parsed.get(n)
                    if other is None or n < h:
                        continue
                    j = other.path_on_edge(opposite(e))
                    if j is not None and other.paths[j].color == p.color:
                        edges[p.color].append(((h, i), (n, j)))
        self.colored: dict[str, nx.Graph] = {}
        for c in nodes:
            g = nx.Graph()
            g.add_nodes_from(nodes[c])
            g.add_edges_from(edges[c])
            self.colored[c] = g
        self.spore_nodes: dict[str, Node] = {}
        self._spore_links: dict[Node, list[tuple[Node, str]]] = {}
        for color, spore in position.spores.items():
            if spore is None or spore.at is None:
                continue
            node = (spore.at, SPORE)
            self.spore_nodes[color] = node
            links = []
            for e in range(6):
                n = spore.at.neighbor(e)
                other = parsed.get(n)
                if other is None:
                    continue
                j = other.path_on_edge(opposite(e))
                if j is not None:
                    links.append(((n, j), other.paths[j].color))
            self._spore_links[node] = links
        self._owner = {node: c for c, node in self.spore_nodes.items()}

    @cached_property
    def graph(self) -> nx.Graph:
        """Every path and spore node in one graph (built on first use)."""
        g = nx.Graph()
        for color, cg in self.colored.items():
            g.add_nodes_from(cg.nodes, color=color)
            g.add_edges_from(cg.edges, color=color)
        for node, links in self._spore_links.items():
            g.add_node(node, color=None, owner=self._owner[node])
            for n, c in links:
                g.add_edge(node, n, color=c)
        return g

    _shared: "OrderedDict[tuple, MyceliumGraph]" = OrderedDict()
    _shared_lock = threading.Lock()
    SHARED = 64
    """How many graphs :meth:`of` keeps (the most recently used)."""

    @classmethod
    def of(cls, position: Position) -> "MyceliumGraph":
        """The graph of ``position``, shared with every position of the same tiles and spores:
        a graph depends on nothing else, and most moves (draws, meeple moves, purchases'
        cubes, ends of turn) leave both as they were, so a game builds one per tile laid or
        taken instead of one per move."""
        key = (frozenset(position.tiles.items()),
               frozenset((c, s.at) for c, s in position.spores.items() if s is not None))
        with cls._shared_lock:
            g = cls._shared.get(key)
            if g is not None:
                cls._shared.move_to_end(key)
                return g
        g = cls(position)
        with cls._shared_lock:
            cls._shared[key] = g
            while len(cls._shared) > cls.SHARED:
                cls._shared.popitem(last=False)
        return g

    # --- queries ------------------------------------------------------------------------
    def nodes_at(self, at: Hex, color: str | None = None) -> list[Node]:
        """Path nodes on space ``at`` (of ``color`` if given); a spore's node if one is there."""
        code = self._tiles.get(at)
        if code is None:
            owner = self._spore_at.get(at)
            return [self.spore_nodes[owner]] if owner in self.spore_nodes else []
        return [(at, i) for i, p in enumerate(tilecodes.parse(code).paths) if color is None or p.color == color]

    def walk(self, starts: list[Node], color: str, avoid: frozenset[Hex] = frozenset(),
             spores: frozenset[str] = frozenset(), bridge: bool = False) -> set[Node]:
        """Every node reachable from ``starts`` along ``color`` mycelium (breadth-first).

        ``avoid``: spaces the walk may not enter (e.g. under other players' meeples).
        ``spores``: owners of the spores the walk may reach.  A spore is an end point, never
        a bridge: a walk can start or stop on one but not pass through it, so a spore never
        joins two networks (docs/rules.md).  ``bridge=True`` lifts that, only to explain why
        a move fails ("the only way crosses a spore").
        """
        adj = self.colored[color].adj
        seen: set[Node] = set()
        queue: list[Node] = []
        for s in starts:
            if s in seen:
                continue
            seen.add(s)
            if s[1] == SPORE:
                for n, c in self._spore_links.get(s, ()):
                    if c == color and n[0] not in avoid and n not in seen:
                        seen.add(n)
                        queue.append(n)
            else:
                queue.append(s)
        spore_at = {node[0]: node for node, owner in self._owner.items() if owner in spores}
        while queue:
            node = queue.pop()
            for n in adj[node]:
                if n not in seen and n[0] not in avoid:
                    seen.add(n)
                    queue.append(n)
            # A path on an edge facing an allowed spore reaches that spore.
            if spore_at:
                h = node[0]
                for e in tilecodes.parse(self._tiles[h]).paths[node[1]].edges:
                    sn = spore_at.get(h.neighbor(e))
                    if sn is not None and sn not in seen:
                        seen.add(sn)
                        if bridge:
                            for n, c in self._spore_links.get(sn, ()):
                                if c == color and n[0] not in avoid and n not in seen:
                                    seen.add(n)
                                    queue.append(n)
        return seen

    @cached_property
    def networks(self) -> list[Network]:
        """All networks (connected components of one colour's paths), largest first.

        ``Network.nodes`` also holds the spore nodes the network touches.
        """
        out: list[Network] = []
        spores_by_path: dict[Node, list[Node]] = {}
        for s, links in self._spore_links.items():
            for n, _c in links:
                spores_by_path.setdefault(n, []).append(s)
        for color, g in self.colored.items():
            for comp in nx.connected_components(g):
                touching = {s for n in comp for s in spores_by_path.get(n, ())}
                out.append(Network(color, frozenset(comp) | frozenset(touching),
                                   frozenset(n[0] for n in comp),
                                   tuple(sorted(self._owner[s] for s in touching))))
        out.sort(key=lambda n: (-len(n), n.color, min(n.spaces)))
        return out

    def network_of(self, node: Node, color: str) -> Network | None:
        """The network of ``color`` containing ``node`` (a path node, or a spore it touches)."""
        for net in self.networks:
            if net.color == color and node in net.nodes:
                return net
        return None

    def networks_at(self, at: Hex) -> list[Network]:
        """Every network passing through space ``at`` (a tile, or touching a spore there)."""
        nodes = set(self.nodes_at(at))
        return [net for net in self.networks if nodes & net.nodes]
