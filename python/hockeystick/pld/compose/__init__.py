"""Composition: many rounds' PMFs into one, every truncation and round-off charged.

``pmf`` (the grid PMF and its hockey-stick curve), ``fft`` (the C++ FFT composition on scipy.fft),
``distribution`` (the PLD object: factors per neighbouring direction, composed lazily), ``finite_atoms``
(finite pairs composed exactly, beside a grid; its pieces in ``atoms`` and ``atoms_*``), ``truncation`` (tails
sized to the delta asked), ``charged_grid`` (a PMF's masses, round-off charges and charged curve at each eps)
and ``pmf_envelope`` (its optimistic suffix maxima).
"""

from ...base.moved import forwarding

__getattr__ = forwarding(__name__, globals())
