"""What a composed PLD answers beyond delta(eps) and eps(delta) on its grid.

``epsilon_width`` (the eps bracket a delta bracket certifies), ``complement`` and ``affinity_ceiling``
(delta near 1, from bounds on 1 - delta), ``along_run`` (the bracket after every checkpoint of one run).
"""
