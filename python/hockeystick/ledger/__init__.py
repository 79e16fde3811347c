"""A privacy budget over time: the rounds of a run recorded as they happen, with the guarantee each answer gives.

* ``PrivacyLedger``: records each round (``Round``: the Poisson-subsampled Gaussian with that
  round's sigma and q, the Gaussian, the Laplace mechanism, discrete Gaussian noise, a matrix
  mechanism's whole release, a stage of a compose file) and answers, after any round,

  - for a schedule fixed before the run (``adaptive=False``): the certified PLD bracket of the
    composition (``composition``);
  - for settings chosen from earlier outputs (``adaptive=True``) with a budget fixed before the run:
    a filter valid under full adaptivity, the Rényi filter (Feldman & Zrnic 2021) or, for Gaussian
    rounds, the GDP filter (Smith & Thakurta 2022), exact there; ``would_exceed`` and ``record``
    (which raises ``BudgetExceeded`` instead of recording a round that would pass the budget, saying
    why and, when the round alone passes it, what would admit it; ``explain`` gives that text
    without recording);
  - ``best_order``: the single Rényi order a planned round fits best, for Feldman & Zrnic's
    one-order filter (no union over orders);
  - in either case, the Rényi odometer's running epsilon (``odometer``), valid at every round at
    once;

  and saves and restores its state (``state_dict`` / ``load_state_dict``, ``to_json`` / ``from_json``).
* ``PrivacyGuarantee``: an answer with its kind (certified composition, filter, odometer), method
  and assumption.
* ``IndividualRdpFilter``: Feldman & Zrnic's individual Rényi filter for full-batch noisy gradient
  descent: each record spends by its own clipped gradient's norm and leaves the steps its budget
  cannot pay for; it answers with the guarantee only (what a record spent is data-dependent).
* ``per_client_epsilon``: each client's epsilon from its own participation rate (Rényi DP), with the
  worst, the median and quantiles (``ClientEpsilons``); ``realized_client_epsilon``: from the rounds
  a client is known to have taken part in, without amplification (Gaussian DP).

docs/ledger.md has a training loop that halts, and the proofs' outlines.
"""

from .guarantee import KINDS, PrivacyGuarantee
from .halting import BudgetExceeded
from .individual_filter import IndividualRdpFilter
from .ledger import FILTERS, PrivacyLedger
from .per_client import ClientEpsilons, per_client_epsilon, realized_client_epsilon
from .rdp_filter import best_order
from .round_rdp import DEFAULT_ORDERS
from .rounds import MECHANISMS, Round

__all__ = [
    "DEFAULT_ORDERS",
    "FILTERS",
    "KINDS",
    "MECHANISMS",
    "BudgetExceeded",
    "ClientEpsilons",
    "IndividualRdpFilter",
    "PrivacyGuarantee",
    "PrivacyLedger",
    "Round",
    "best_order",
    "per_client_epsilon",
    "realized_client_epsilon",
]
