"""The registry's catalogue: every accountant and calculator the package registers, by the family of mechanisms
(importing this package registers them, in this order)."""

# the order of registration is the order of the listing
# isort: off
from . import accountants as accountants
from . import training_runs as training_runs
from . import matrix_mechanisms as matrix_mechanisms
from . import isrl_silos as isrl_silos
from . import leakage_calculators as leakage_calculators
from . import secure_aggregation as secure_aggregation
# isort: on
