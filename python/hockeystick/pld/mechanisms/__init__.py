"""One round of a mechanism: its dominating pair and the discretization of each side.

A mechanism module gives, for one round, the pessimistic (upper) and optimistic (lower) PMFs on the loss grid,
or its exact finite pair where it has one, with the proof of the pair in its docstring: ``constructors``
(the Gaussian, Laplace and subsampled Gaussians; ``from_distributions`` and ``pair_factor`` for any pair),
``canonical`` (any (eps, delta)-DP mechanism), ``randomized_response``, ``discrete_laplace``,
``discrete_gaussian``, ``gaussian_mixture``, ``laplace_mixture``, ``monotone`` (real pairs with a monotone loss),
``selection`` (the exponential mechanism, permute-and-flip), ``pld_mixture`` (a mechanism chosen at random),
``group_privacy`` and ``group_of_records`` (groups of c records), ``neighbouring`` (the relation each bounds).
"""

from ...base.moved import forwarding

__getattr__ = forwarding(__name__, globals())
