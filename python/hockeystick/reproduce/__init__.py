"""What reproduces published figures and the README's end-to-end example (the top library layer, under the CLI).

``figures`` (the contraction papers' figures), ``errata_003`` (paper 003's corrected tables and
figure) and ``example`` (the README's sweep, calibration and pictures).
"""
