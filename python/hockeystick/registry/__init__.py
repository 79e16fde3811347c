"""Accountants and calculators by name, with the parameters each takes: what sweeps and calibration can drive.

An accountant entry names an accountant class (the accountant contract: keyword parameters
that broadcast, ``.delta(epsilon)`` and ``.epsilon(delta)``), and says which of its
parameters are integers and which can be calibrated (and in which direction the bound
moves with them).

A calculator entry names a broadcasting function of keyword parameters that computes one
named quantity that is not an (epsilon, delta) pair: paper 001's Bayesian leakage (TV, JS
between a parameter's distribution and its distorted release) and the paper's formulas
for it.  A sweep over a calculator outputs its quantity; where a calculator has an
inverse for a parameter (the distortion variance meeting a target TV), a sweep can
output that parameter given the quantity as its target, as calibration does for
accountants.

Data flows down: the catalogue imports the accountants and calculators, they never import it.  The
machinery (``entries``, ``store``, ``families``, ``by_name``, ``per_point``) is apart from the
catalogue of entries (``catalogue``), whose modules register their entries when imported: the store
imports the module that registers a name the first time the name is asked for, and every module when
the entries are listed, so that reading one accountant does not import every family of mechanisms.
"""

from . import catalogue as catalogue
from .by_name import default_output, get, lookup
from .entries import AccountantEntry, CalculatorEntry, Calibratable, Inverse
from .families import configure, vector
from .per_point import PerPoint
from .store import (
    CALCULATORS,
    REGISTRY,
    calculator_names,
    family_names,
    names,
    register,
    register_calculator,
)

__all__ = [
    "Calibratable",
    "AccountantEntry",
    "CalculatorEntry",
    "Inverse",
    "PerPoint",
    "REGISTRY",
    "CALCULATORS",
    "default_output",
    "get",
    "lookup",
    "names",
    "calculator_names",
    "configure",
    "family_names",
    "register",
    "register_calculator",
    "vector",
]
