"""How a record enters a round: a sampling scheme turns a mechanism's pair into the pair of the sampled round.

``subsampling`` (Poisson sampling of a finite pair), ``subsampled_pair`` (Poisson and fixed-size sampling of any
mechanism given by certified curves), ``truncated_subsampling``, ``with_replacement_realizable`` and
``with_replacement_shift_bound`` (batches drawn with replacement), ``poisson_replace_one`` (Poisson sampling
under replace-one), ``random_allocation`` (balls-in-bins: one step of an epoch per record) and
``grid_readback`` (an upper PMF made to cover its targets at its grid points).
"""
