"""The types every stage of the pipeline passes on: ``pmf`` (``GridPMF``, the grid PMF, and its hockey-stick
curve), ``charged_grid`` (a PMF's masses, round-off charges and charged curve at each eps), ``pmf_envelope`` (its
optimistic suffix maxima), ``atoms`` (``Atoms``, a finite pair's losses and masses), ``distribution``
(``PrivacyLossDistribution``: factors per neighbouring direction, composed lazily by the composition the compose
stage installs) and ``tail`` (the composition's default tail).  The C++ core's ``pld/grid`` holds the same
types (the grid PMF, its cells, its connect-the-dots sides).
"""
