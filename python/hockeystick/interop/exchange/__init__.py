"""The PLD file other accountants read: Google's PLD fields, written and read back.

``export_pld`` gives a hockeystick PLD, a run's certified curve or a fixed-schedule ledger in
Google's PLD fields (``ExchangedPLD``: each direction's pessimistic PMF, its composition's charges
folded in, and the optimistic one; ``pld_exchange``, ``pld_curve``, ``pld_folding``),
``ExchangedPLD.to_json`` / ``from_json`` store them (``pld_format``: the schema and its checks),
``import_pld`` reads them back, ``to_dp_accounting`` / ``from_dp_accounting`` convert to and from
dp_accounting's ``PrivacyLossDistribution``.  Writing and reading the file need no dp_accounting;
only the two conversions import it.

Examples
--------
>>> import hockeystick.pld as pld
>>> from hockeystick.interop.exchange import ExchangedPLD, export_pld, import_pld
>>> d = pld.laplace(1.0, value_discretization_interval=1e-2)
>>> back = import_pld(ExchangedPLD.from_json(export_pld(d).to_json()))
>>> bool(back.delta(0.5) >= d.delta(0.5))
True
"""

from .pld_exchange import export_pld, from_dp_accounting, import_pld, to_dp_accounting
from .pld_format import ExchangedPLD, ExchangedPMF

__all__ = [
    "ExchangedPLD",
    "ExchangedPMF",
    "export_pld",
    "from_dp_accounting",
    "import_pld",
    "to_dp_accounting",
]
