"""The front ends: each says what is composed and asks the pipeline (compose, reads, refine) for the bracket.

``subsampled_gaussian`` (``SubsampledGaussianPLD``, ``PLDAccountant``), ``fixed_batch`` (fixed-size batches,
replace-one), ``allocation`` (epochs of balls-in-bins and of shuffled batches), ``stages`` (heterogeneous runs),
``composition_plan`` (a multiset of mechanisms, the dp_accounting and Opacus adapters' front end) with ``plan``
(its certified profile and the catalogue of its mechanisms), ``plan_sides`` (the curves those share) and
``zcdp_plan`` (zCDP runs, which have no PLD).
"""
