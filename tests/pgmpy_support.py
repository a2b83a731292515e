"""mllib.bayesnet networks as pgmpy models: the test and benchmark oracle."""

from __future__ import annotations

import warnings

import numpy as np

with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)  # pgmpy's import-time deprecation notices
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.inference import VariableElimination
    from pgmpy.models import DiscreteBayesianNetwork

from mllib.bayesnet import BayesNet


def to_pgmpy(net: BayesNet) -> DiscreteBayesianNetwork:
    """The same network in pgmpy: its CPT values are (|x|, Π|parents|), first parent slowest."""
    model = DiscreteBayesianNetwork([(p, v) for v in net.names for p in net.parents[v]])
    model.add_nodes_from(net.names)
    for v in net.names:
        table = net.cpts[v]
        parents = list(net.parents[v])
        model.add_cpds(TabularCPD(
            v, table.shape[-1], table.reshape(-1, table.shape[-1]).T,
            evidence=parents or None, evidence_card=list(table.shape[:-1]) or None,
            state_names={u: list(net.domains[u]) for u in (*parents, v)},
        ))
    model.check_model()
    return model


def pgmpy_query(engine: VariableElimination, net: BayesNet, target: str, evidence) -> np.ndarray:
    """P(target | evidence) from pgmpy, in the order of the target's domain."""
    factor = engine.query([target], evidence=evidence, show_progress=False)
    return np.array([factor.get_value(**{target: value}) for value in net.domains[target]])


__all__ = ["VariableElimination", "pgmpy_query", "to_pgmpy"]
