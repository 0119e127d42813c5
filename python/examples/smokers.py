#!/usr/bin/env python3
"""Smokers and friends, written as a pslpython script: only the imports
differ from PSL's Python interface (pslpython.model -> hinge.model, and so
on). It builds the model of examples/smokers/ in Python, infers the unknown
atoms (the values `hinge infer` prints for that model), learns the rules'
weights from the truth data, and infers again with the learned weights.

Run it from the repository root with the package on the path:

    PYTHONPATH=python python3 python/examples/smokers.py

(hinge is found on HINGE_BIN, else on PATH.)
"""

import os

from hinge.model import Model
from hinge.partition import Partition
from hinge.predicate import Predicate
from hinge.rule import Rule

MODEL_NAME = 'smokers'
DATA_DIR = os.path.join(os.path.dirname(os.path.realpath(__file__)), '..', '..', 'examples', 'smokers')

# PSL options work where hinge has the same setting (here ADMM's iteration
# limit); logging options are accepted and change nothing.
ADDITIONAL_PSL_OPTIONS = {
    'log4j.threshold': 'INFO',
    'admmreasoner.maxiterations': 25000,
}


def add_predicates(model):
    model.add_predicate(Predicate('Friends', closed=True, size=2))
    model.add_predicate(Predicate('Smokes', closed=False, size=1))
    model.add_predicate(Predicate('Cancer', closed=False, size=1))


def add_rules(model):
    model.add_rule(Rule('0.5: Smokes(X) -> Cancer(X) ^2'))
    model.add_rule(Rule('0.4: Friends(A1, A2) & Smokes(A1) -> Smokes(A2) ^2'))
    model.add_rule(Rule('0.4: Friends(A1, A2) & Smokes(A2) -> Smokes(A1) ^2'))
    model.add_rule(Rule('0.01: !Smokes(X)'))
    model.add_rule(Rule('0.01: !Cancer(X)'))


def add_data(model):
    path = os.path.join(DATA_DIR, 'friends_obs.txt')
    model.get_predicate('Friends').add_data_file(Partition.OBSERVATIONS, path)

    path = os.path.join(DATA_DIR, 'smokes_obs.txt')
    model.get_predicate('Smokes').add_data_file(Partition.OBSERVATIONS, path)

    path = os.path.join(DATA_DIR, 'smokes_targets.txt')
    model.get_predicate('Smokes').add_data_file(Partition.TARGETS, path)

    path = os.path.join(DATA_DIR, 'cancer_targets.txt')
    model.get_predicate('Cancer').add_data_file(Partition.TARGETS, path)

    path = os.path.join(DATA_DIR, 'smokes_truth.txt')
    model.get_predicate('Smokes').add_data_file(Partition.TRUTH, path)

    path = os.path.join(DATA_DIR, 'cancer_truth.txt')
    model.get_predicate('Cancer').add_data_file(Partition.TRUTH, path)


def build():
    model = Model(MODEL_NAME)
    add_predicates(model)
    add_rules(model)
    add_data(model)
    return model


def print_results(results):
    for (predicate, frame) in results.items():
        print("--- %s ---" % (predicate.name()))
        print(frame)


def main():
    model = build()

    print('Inference with the initial weights:')
    results = model.infer(psl_config=ADDITIONAL_PSL_OPTIONS)
    print_results(results)

    print('Weight learning:')
    before = [rule.weight() for rule in model.get_rules()]
    model.learn(psl_config=ADDITIONAL_PSL_OPTIONS)
    for (weight, rule) in zip(before, model.get_rules()):
        print("%10.6f -> %s" % (weight, rule))

    print('Inference with the learned weights:')
    print_results(model.infer(psl_config=ADDITIONAL_PSL_OPTIONS))


if (__name__ == '__main__'):
    main()
