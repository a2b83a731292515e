"""Bayesian networks over variables with finite domains: the joint, sampling, exact queries by
enumeration and by variable elimination, and maximum-likelihood CPTs.

Sources
-------
- CS446 slides (seed 001), "Graphical Models of Probability Distributions" and "Bayesian
  Network: Example": a DAG whose nodes carry CPTs P(xᵢ | Parents(xᵢ)), the factorisation
  P(x₁, ..., xₙ) = Πᵢ P(xᵢ | Parents(xᵢ)), and the burglar-alarm network
  P(E) P(B) P(R | E) P(A | E, B) P(M | A) P(J | A). "Computational Problems": learning the
  structure against learning the parameters, and inference being #P-complete in general.
- Russell & Norvig, *Artificial Intelligence: A Modern Approach*, 3rd ed., §14.4.1 (inference
  by enumeration) and §14.4.2 (variable elimination), and Fig. 14.2 for the alarm CPT values
  used by :func:`alarm_network`.

Conventions
-----------
A variable's domain is a tuple of values, e.g. ``(0, 1)`` or ``("low", "high")``. Its CPT is an
array with one axis per parent, in the order the parents are listed, then one axis for the
variable itself: ``cpt[i_1, ..., i_k, j] = P(x = domain[j] | parent_1 = its i_1-th value, ...)``;
summing over the last axis gives 1. A root's CPT is the vector P(x). Assignments and evidence
are dicts {name: value}; data are dicts {name: array of values}, one array per variable.
"""

from __future__ import annotations

import functools
import itertools
import math
import string
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from mllib.validation import positive_int


@dataclass(frozen=True, eq=False)  # compared by identity: its CPTs are arrays
class BayesNet:
    """A Bayesian network: build it with :func:`bayes_net`, which checks every part.

    Attributes
    ----------
    names : tuple of str
        The variables in a topological order (every parent before its children).
    domains : dict
        name -> tuple of the variable's values.
    parents : dict
        name -> tuple of parent names.
    cpts : dict
        name -> ndarray of shape (|parent_1|, ..., |parent_k|, |domain|).
    """

    names: tuple[str, ...]
    domains: Mapping[str, tuple]
    parents: Mapping[str, tuple[str, ...]]
    cpts: Mapping[str, np.ndarray]

    def parameter_count(self) -> int:
        """The free parameters: Σᵢ (|dom xᵢ| - 1) Π_{p ∈ Parents(xᵢ)} |dom p|.

        Each CPT row sums to 1, so it has one number fewer than the domain. The alarm network
        has 1 + 1 + 2 + 4 + 2 + 2 = 12 (CS446 "How many parameters do we have?").
        """
        return sum((len(self.domains[v]) - 1) * int(np.prod(self.cpts[v].shape[:-1]))
                   for v in self.names)

    def full_joint_parameter_count(self) -> int:
        """Π |dom xᵢ| - 1: the free numbers of a table of the whole joint (2⁶ - 1 = 63)."""
        return int(np.prod([len(self.domains[v]) for v in self.names])) - 1

    def joint(self, assignment: Mapping[str, object]) -> float:
        """P(x₁, ..., xₙ) = Πᵢ P(xᵢ | Parents(xᵢ)) for a complete assignment {name: value}."""
        if set(assignment) != set(self.names):
            missing = sorted(set(self.names) - set(assignment))
            extra = sorted(set(assignment) - set(self.names))
            raise ValueError(f"joint needs a value for every variable and nothing else; "
                             f"missing {missing}, unknown {extra}.")
        index = self._indices(assignment)
        return float(np.prod([self.cpts[v][tuple(index[p] for p in (*self.parents[v], v))]
                              for v in self.names]))

    def sample(self, n: int, seed=0) -> dict[str, np.ndarray]:
        """Draw n joint samples by ancestral sampling: each variable after its parents.

        Returns {name: array of shape (n,) of domain values}. ``seed`` is an int or a
        ``numpy.random.Generator``.
        """
        n = positive_int(n, "n")
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        states: dict[str, np.ndarray] = {}
        for v in self.names:
            rows = self.cpts[v][tuple(states[p] for p in self.parents[v])]  # (n, |v|) or (|v|,)
            cumulative = np.cumsum(np.broadcast_to(rows, (n, rows.shape[-1])), axis=1)
            u = rng.random(n)[:, None]
            states[v] = np.minimum(np.sum(u >= cumulative, axis=1), rows.shape[-1] - 1)
        return {v: np.asarray(self.domains[v])[states[v]] for v in self.names}

    def query(self, target: str, evidence: Mapping[str, object] | None = None, *,
              method: str = "elimination") -> np.ndarray:
        """P(target | evidence), shape (|dom target|,), in the order of the target's domain.

        ``method="enumeration"`` sums the joint over every assignment of the hidden variables
        (R&N §14.4.1; exponential in their number). ``method="elimination"`` is exact variable
        elimination (R&N §14.4.2): drop the variables that are neither the target, evidence nor
        their ancestors, then sum the hidden ones out one at a time, each time choosing the
        variable whose new factor is smallest; that order depends on the graph and the observed
        names only, so it is computed once per (target, observed names) and kept with the
        network. Both raise ``ValueError`` when the evidence has probability 0.
        """
        observed = self._query_indices(target, evidence)
        if method == "enumeration":
            unnormalised = _enumerate(self, target, observed)
        elif method == "elimination":
            unnormalised = _eliminate(self, target, observed)
        else:
            raise ValueError(f"method must be 'enumeration' or 'elimination'; got {method!r}.")
        total = unnormalised.sum()
        if total <= 0:
            raise ValueError("the evidence has probability 0 in this network.")
        return unnormalised / total

    def elimination_plan(self, target: str, evidence: Mapping[str, object] | None = None,
                         ) -> EliminationPlan:
        """What :meth:`query` by elimination does for P(target | evidence), without doing it:
        the variables it keeps and, in order, each variable it sums out (see
        :class:`EliminationPlan`). Raises ``ValueError`` on the inputs :meth:`query` refuses.
        """
        return _plan(self, target, self._query_indices(target, evidence))

    def most_probable_explanation(self, evidence: Mapping[str, object] | None = None,
                                  ) -> tuple[dict[str, object], float]:
        """The most probable explanation (MPE): argmax over the hidden variables' joint
        assignment y of P(Y = y | E = e), and that probability.

        CS446 "Computational Problems": finding it is NP-hard in general (Shimony 1994), like
        computing a probability is #P-complete. This is exhaustive search over the hidden
        assignments (exponential in their number), for small networks. The MPE is one joint
        assignment; setting each hidden variable to its own most probable value (from
        :meth:`query`) can give a different, even less probable, one. Ties go to the first
        assignment in domain order. Raises ``ValueError`` when the evidence has probability 0.
        """
        evidence = dict(evidence or {})
        self._indices(evidence)
        hidden = [v for v in self.names if v not in evidence]
        best, best_p, total = {}, -1.0, 0.0
        for values in itertools.product(*(self.domains[v] for v in hidden)):
            assignment = dict(zip(hidden, values, strict=True))
            p = self.joint({**evidence, **assignment})
            total += p
            if p > best_p:
                best, best_p = assignment, p
        if total <= 0:
            raise ValueError("the evidence has probability 0 in this network.")
        return best, best_p / total

    def fit(self, data: Mapping[str, Sequence], *, smoothing: float = 0.0) -> BayesNet:
        """The same structure with CPTs estimated from complete data (parameter learning).

        With s = 0 (the default), maximum likelihood: the counts (CS446 "Learning the
        parameters"; the coin's k/m per parent configuration). With s > 0, Laplace smoothing

            P(x = j | parents = u) = (#(x = j, u) + s) / (#(u) + s |dom x|),

        which is not ML but MAP: the mode of the posterior under a Dirichlet(s + 1, ..., s + 1)
        prior on each row (for a binary x and s = 1, the Beta(2, 2) of the coin). With s = 0 a
        parent configuration that never occurs in the data gets a uniform row. ``data`` is
        {name: array of N values}, one entry per variable.
        """
        if not (np.isfinite(smoothing) and smoothing >= 0):
            raise ValueError(f"smoothing must be a number >= 0; got {smoothing!r}.")
        columns = self._columns(data)
        cpts = {}
        for v in self.names:
            shape = self.cpts[v].shape
            counts = np.zeros(shape)
            np.add.at(counts, tuple(columns[u] for u in (*self.parents[v], v)), 1)
            counts += smoothing
            totals = counts.sum(axis=-1, keepdims=True)
            with np.errstate(invalid="ignore", divide="ignore"):
                cpts[v] = np.where(totals > 0, counts / totals, 1 / shape[-1])
        return BayesNet(self.names, self.domains, self.parents, cpts)

    def log_likelihood(self, data: Mapping[str, Sequence]) -> float:
        """log P(data) = Σ over the N cases of Σᵢ log P(xᵢ | Parents(xᵢ)), natural log.

        ``data`` is {name: array of N values}, as for :meth:`fit`; a case of probability 0
        gives -inf. With :meth:`fit`'s CPTs this is the maximized likelihood of the structure,
        the score that structure learning compares (CS446 "Computational Problems").
        """
        columns = self._columns(data)
        with np.errstate(divide="ignore"):
            return float(sum(np.log(self.cpts[v][tuple(columns[u] for u in (*self.parents[v], v))])
                             .sum() for v in self.names))

    # --- helpers ---------------------------------------------------------------------------

    def _columns(self, data: Mapping[str, Sequence]) -> dict[str, np.ndarray]:
        """The value indices of complete data {name: N values}, checked."""
        if set(data) != set(self.names):
            raise ValueError(f"data must have one column per variable {list(self.names)}; "
                             f"got {sorted(data)}.")
        columns = {v: self._column(v, data[v]) for v in self.names}
        lengths = {len(c) for c in columns.values()}
        if len(lengths) != 1 or 0 in lengths:
            raise ValueError("every column of data must have the same, non-zero length.")
        return columns

    def _query_indices(self, target: str, evidence: Mapping[str, object] | None,
                       ) -> dict[str, int]:
        """The evidence's value indices, checked, for a query of ``target``."""
        evidence = dict(evidence or {})
        self._variable(target)
        if target in evidence:
            raise ValueError(f"{target!r} is both the target and evidence.")
        return self._indices(evidence)

    def _variable(self, name) -> str:
        if name not in self.domains:
            raise ValueError(f"unknown variable {name!r}; the network has {list(self.names)}.")
        return name

    def _index(self, name, value) -> int:
        domain = self.domains[self._variable(name)]
        if value not in domain:
            raise ValueError(f"{value!r} is not in the domain of {name!r}, {domain}.")
        return domain.index(value)

    def _indices(self, assignment: Mapping[str, object]) -> dict[str, int]:
        return {v: self._index(v, value) for v, value in assignment.items()}

    def _column(self, name: str, values) -> np.ndarray:
        lookup = {value: i for i, value in enumerate(self.domains[name])}
        try:
            return np.array([lookup[value] for value in np.asarray(values).tolist()], dtype=int)
        except KeyError as error:
            raise ValueError(f"data for {name!r} holds {error.args[0]!r}, which is not in its "
                             f"domain {self.domains[name]}.") from None


def bayes_net(domains: Mapping[str, Sequence], parents: Mapping[str, Sequence[str]],
              cpts: Mapping[str, object]) -> BayesNet:
    """Build and check a Bayesian network.

    Parameters
    ----------
    domains : dict
        name -> sequence of at least one distinct value.
    parents : dict
        name -> sequence of parent names (roots may be omitted or map to ()).
    cpts : dict
        name -> array_like of shape (|parent_1|, ..., |parent_k|, |domain|), entries >= 0,
        summing to 1 over the last axis (to 1e-9).

    Raises
    ------
    ValueError
        On an unknown variable name, a cycle, a missing CPT, a CPT of the wrong shape or one
        whose rows do not sum to 1.
    """
    domains = {v: tuple(values) for v, values in domains.items()}
    for v, values in domains.items():
        if not values or len(set(values)) != len(values):
            raise ValueError(f"the domain of {v!r} must hold at least one value, each once.")
    graph = {v: tuple(parents.get(v, ())) for v in domains}
    unknown = sorted((set(parents) | {p for ps in graph.values() for p in ps} | set(cpts))
                     - set(domains))
    if unknown:
        raise ValueError(f"unknown variable name(s) {unknown}: every name needs a domain.")
    tables = {}
    for v in domains:
        if v not in cpts:
            raise ValueError(f"no CPT for {v!r}.")
        table = np.asarray(cpts[v], dtype=float)
        shape = tuple(len(domains[p]) for p in (*graph[v], v))
        if table.shape != shape:
            raise ValueError(f"the CPT of {v!r} must have shape {shape} (parents {graph[v]}, "
                             f"then {v!r}); got {table.shape}.")
        if not np.all(table >= 0) or not np.allclose(table.sum(axis=-1), 1, rtol=0, atol=1e-9):
            raise ValueError(f"the CPT of {v!r} must be non-negative with every row (last axis) "
                             "summing to 1.")
        tables[v] = table
    return BayesNet(_topological(graph), domains, graph, tables)


def _topological(graph: Mapping[str, tuple[str, ...]]) -> tuple[str, ...]:
    """Kahn's algorithm; ValueError naming the variables on a cycle."""
    waiting = {v: set(ps) for v, ps in graph.items()}
    order: list[str] = []
    ready = [v for v, ps in waiting.items() if not ps]
    while ready:
        v = ready.pop(0)
        order.append(v)
        for child, ps in waiting.items():
            if v in ps:
                ps.discard(v)
                if not ps:
                    ready.append(child)
    if len(order) != len(graph):
        raise ValueError(f"the graph has a cycle through {sorted(set(graph) - set(order))}; "
                         "a Bayesian network must be acyclic.")
    return tuple(order)


# --- Inference ------------------------------------------------------------------------------


def _enumerate(net: BayesNet, target: str, observed: dict[str, int]) -> np.ndarray:
    """Σ over every hidden assignment of Πᵢ P(xᵢ | Parents(xᵢ)), one sum per target value."""
    hidden = [v for v in net.names if v != target and v not in observed]
    result = np.zeros(len(net.domains[target]))
    for t in range(len(result)):
        for values in itertools.product(*(range(len(net.domains[v])) for v in hidden)):
            index = {**observed, target: t, **dict(zip(hidden, values, strict=True))}
            result[t] += np.prod([net.cpts[v][tuple(index[p] for p in (*net.parents[v], v))]
                                  for v in net.names])
    return result


def _ancestors(net: BayesNet, names) -> set[str]:
    found, stack = set(), list(names)
    while stack:
        v = stack.pop()
        if v not in found:
            found.add(v)
            stack.extend(net.parents[v])
    return found


@dataclass(frozen=True)
class EliminationStep:
    """One step of variable elimination: sum ``variable`` out of the product of the factors
    that mention it. That product is a table over ``variable`` and ``scope`` with ``entries``
    numbers; what is left is a factor over ``scope`` (in the network's topological order)."""

    variable: str
    scope: tuple[str, ...]
    entries: int


@dataclass(frozen=True)
class EliminationPlan:
    """Variable elimination's work for one query (R&N §14.4.2).

    ``relevant`` are the target, the evidence and their ancestors, in topological order: every
    other variable sums to 1 and is dropped before any table is built. ``steps`` sum the hidden
    relevant variables out one at a time, each time choosing the variable whose new factor has
    the fewest entries (ties by name).
    """

    relevant: tuple[str, ...]
    steps: tuple[EliminationStep, ...]

    @property
    def largest_table(self) -> int:
        """The entries of the largest product a step builds (0 when nothing is summed out)."""
        return max((step.entries for step in self.steps), default=0)


def _plan(net: BayesNet, target: str, observed: dict[str, int]) -> EliminationPlan:
    """The relevant variables and the greedy elimination order, from the graph alone."""
    relevant, _, steps = _greedy(net, target, observed)
    return EliminationPlan(relevant, tuple(EliminationStep(*step) for step in steps))


def _greedy(net: BayesNet, target: str, observed: dict[str, int],
            ) -> tuple[tuple[str, ...], list[tuple[str, ...]], list[tuple[str, tuple, int]]]:
    """:func:`_plan`'s work as plain tuples: the relevant variables, their CPTs' scopes
    (:func:`_scopes`) and the steps as (variable, scope, entries)."""
    ancestors = _ancestors(net, [target, *observed])  # the others sum to 1 and drop out
    relevant = tuple(v for v in net.names if v in ancestors)
    size = {v: len(net.domains[v]) for v in relevant}
    hidden = ancestors - observed.keys() - {target}
    # Two variables are neighbours when a factor mentions both (evidence leaves every scope).
    neighbours: dict[str, set[str]] = {v: set() for v in hidden | {target}}
    scopes = _scopes(net, relevant, observed)
    for scope in scopes:
        for v in scope:
            neighbours[v].update(scope)
    for v, others in neighbours.items():
        others.discard(v)
    # (entries of u's new factor, u): min() of these is the greedy choice, ties by name
    cost = {u: (math.prod(map(size.__getitem__, neighbours[u])), u) for u in hidden}
    order = {v: i for i, v in enumerate(relevant)}
    steps = []
    while cost:
        u = min(cost.values())[1]
        del cost[u]
        scope = neighbours.pop(u)
        for w in scope:  # summing u out joins its neighbours in one factor
            joined = neighbours[w]
            joined |= scope
            joined.discard(w)
            joined.discard(u)
            if w in cost:
                cost[w] = (math.prod(map(size.__getitem__, joined)), w)
        steps.append((u, tuple(sorted(scope, key=order.__getitem__)),
                      size[u] * math.prod(map(size.__getitem__, scope))))
    return relevant, scopes, steps


def _scopes(net: BayesNet, relevant: tuple[str, ...], observed: dict[str, int],
            ) -> list[tuple[str, ...]]:
    """The unobserved variables of each relevant CPT, one tuple per CPT."""
    return [tuple([u for u in (*net.parents[v], v) if u not in observed]) for v in relevant]


@dataclass(frozen=True)
class _Schedule:
    """A query's elimination compiled from the graph, for any evidence values.

    ``factors`` are the relevant CPTs as (name, axes, observed): the CPT's axes (parents, then
    the variable) and whether evidence slices it. ``scopes`` are the variables of every slot:
    the CPTs' first (evidence removed), then each step's result. ``steps`` are (involved,
    scope): the slots of the factor list that each step multiplies (a step appends its result
    as a new slot), in the order the factor list holds them. ``last`` are the slots left over
    the target.
    """

    factors: tuple[tuple[str, tuple[str, ...], bool], ...]
    scopes: tuple[tuple[str, ...], ...]
    steps: tuple[tuple[tuple[int, ...], tuple[str, ...]], ...]
    last: tuple[int, ...]


# Schedules depend on the graph alone (names, parents, domain sizes), never on CPT values, so
# they are kept per network (dropped with it) and per (target, observed names), the oldest
# dropped first beyond SCHEDULES_PER_NETWORK (a loop over every evidence set stays bounded).
_SCHEDULES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
SCHEDULES_PER_NETWORK = 1024


def _schedule(net: BayesNet, target: str, observed: dict[str, int]) -> _Schedule:
    """The cached :class:`_Schedule` of P(target | evidence on ``observed``'s names)."""
    cache = _SCHEDULES.setdefault(net, {})
    key = (target, frozenset(observed))
    if key not in cache:
        if len(cache) >= SCHEDULES_PER_NETWORK:
            del cache[next(iter(cache))]  # dicts keep insertion order: the oldest
        cache[key] = _compile(net, target, observed)
    return cache[key]


def _compile(net: BayesNet, target: str, observed: dict[str, int]) -> _Schedule:
    """Replay :func:`_plan`'s steps on slot numbers instead of tables: the same factors, in the
    same order, as eliminating on the tables themselves. That order is the order of creation
    (a step removes factors and appends its own), so each variable's holders, listed as they
    are created, give a step's factors in order."""
    relevant, scopes, plan_steps = _greedy(net, target, observed)
    factors = tuple((v, axes, not observed.keys().isdisjoint(axes))
                    for v in relevant for axes in [(*net.parents[v], v)])
    holders: dict[str, list[int]] = {}
    for slot, scope in enumerate(scopes):
        for v in scope:
            holders.setdefault(v, []).append(slot)
    alive = [True] * len(scopes)
    steps = []
    for variable, scope, _ in plan_steps:
        involved = tuple(i for i in holders.pop(variable) if alive[i])
        for i in involved:
            alive[i] = False
        for v in scope:
            holders[v].append(len(alive))
        alive.append(True)
        scopes.append(scope)
        steps.append((involved, scope))
    last = tuple(i for i, live in enumerate(alive) if live)
    return _Schedule(factors, tuple(scopes), tuple(steps), last)


def _eliminate(net: BayesNet, target: str, observed: dict[str, int]) -> np.ndarray:
    """Variable elimination along the cached schedule. A factor is (variables, table)."""
    schedule = _schedule(net, target, observed)
    cpts = net.cpts
    tables = [cpts[v][tuple(observed.get(u, _ALL) for u in axes)] if sliced else cpts[v]
              for v, axes, sliced in schedule.factors]
    scopes = schedule.scopes
    for involved, scope in schedule.steps:
        tables.append(_sum_product([(scopes[i], tables[i]) for i in involved], scope)[1])
    return _sum_product([(scopes[i], tables[i]) for i in schedule.last], (target,))[1]


_ALL = slice(None)


def _sum_product(factors, keep: tuple[str, ...]) -> tuple[tuple[str, ...], np.ndarray]:
    """Multiply the factors and sum out every variable not in ``keep`` (one einsum call)."""
    subscripts = _subscripts(tuple(scope for scope, _ in factors), keep)
    return keep, np.einsum(subscripts, *(table for _, table in factors))


@functools.lru_cache(maxsize=4096)
def _subscripts(scopes: tuple[tuple[str, ...], ...], keep: tuple[str, ...]) -> str:
    """einsum's subscripts for multiplying factors over ``scopes`` into a factor over ``keep``:
    one letter per variable, in order of first appearance."""
    letters: dict[str, str] = {}
    for v in itertools.chain(*scopes):
        letters.setdefault(v, string.ascii_letters[len(letters)])
    inputs = ",".join("".join(letters[v] for v in scope) for scope in scopes)
    return f"{inputs}->{''.join(letters[v] for v in keep)}"


# --- Ready-made networks --------------------------------------------------------------------


def alarm_network() -> BayesNet:
    """The burglar-alarm network of CS446 ("Bayesian Network: Example"), values 0 (false) and 1.

    Structure from the slide: P(E) P(B) P(R | E) P(A | E, B) P(M | A) P(J | A), with E an
    earthquake, B a burglary, R a radio report, A the alarm, M and J the neighbours' calls
    (Mary, John). The slide gives no numbers; the CPTs are those of R&N Fig. 14.2 for B, E, A, J
    and M (so P(B = 1 | J = 1, M = 1) ≈ 0.284, R&N §14.4.1), and our choice for the radio:
    P(R = 1 | E = 1) = 0.9, P(R = 1 | E = 0) = 0.001.
    """
    domain = (0, 1)
    return bayes_net(
        {v: domain for v in "EBRAMJ"},
        {"R": ("E",), "A": ("E", "B"), "M": ("A",), "J": ("A",)},
        {
            "E": [0.998, 0.002],
            "B": [0.999, 0.001],
            "R": [[0.999, 0.001], [0.1, 0.9]],
            # A given (E, B): rows E = 0, 1; within them B = 0, 1.
            "A": [[[0.999, 0.001], [0.06, 0.94]], [[0.71, 0.29], [0.05, 0.95]]],
            "M": [[0.99, 0.01], [0.3, 0.7]],
            "J": [[0.95, 0.05], [0.1, 0.9]],
        },
    )


def random_network(n: int, *, max_parents: int = 2, domain_size: int = 2, seed=0) -> BayesNet:
    """A random network over n variables ``"X0"``..., each with up to ``max_parents`` parents
    drawn among the variables before it, values 0..domain_size-1 and Dirichlet(1) CPT rows."""
    n, domain_size = positive_int(n, "n"), positive_int(domain_size, "domain_size")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    names = [f"X{i}" for i in range(n)]
    parents, cpts = {}, {}
    for i, v in enumerate(names):
        k = int(rng.integers(0, min(max_parents, i) + 1))
        parents[v] = tuple(names[j] for j in sorted(rng.choice(i, size=k, replace=False)))
        cpts[v] = rng.dirichlet(np.ones(domain_size), size=(domain_size,) * k)
    return bayes_net({v: tuple(range(domain_size)) for v in names}, parents, cpts)
