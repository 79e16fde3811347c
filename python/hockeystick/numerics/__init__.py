"""The Gaussian tail Q and the hockey-stick divergence theta, over the compiled core (layer 1).

``gaussian`` (Q, log Q, Q^-1, the Mills ratio), ``hockey_stick`` (theta_eps(r) = E_{e^eps}(N(r,1) ||
N(0,1)), its logarithm, derivatives and inverses) and ``certified_theta`` (theta and its inverses
rounded outward, for certified sides).  The functions are exported from ``hockeystick`` itself.
"""
