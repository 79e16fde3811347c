"""The private names the tests read, each with the reason no public one serves (tests/test_private_seams.py keeps
this list and the tests' reads equal).  A test reads a private name only to check a piece below the public
surface that has no public handle of its own: the compiled core's bindings, a cache's contents, a builder a
property test must drive, or a reference formula of another library."""

SEAMS = {
    # the compiled core, below the facade
    "_core": "the bindings' kernels called directly: checked against mpmath and closed forms, thread counts, NaN "
    "policy and the C++ embedding (tests/core, numerics, pld, contraction)",
    "_theta_scalar": "the core's scalar theta, which the AVX2 batch kernel must match bit for bit",
    "_exp_avx2": "the core's vector exp, checked against the scalar exp it stands in for",
    "_expm1_avx2": "the core's vector expm1, checked against the scalar expm1 it stands in for",
    "_gaussian_exponents": "the cell exponents the bitwise cell test recomputes in numpy",
    "_fft_direct": "the direct (long-double) transform the FFT backend is compared with",
    "_subsampled_gaussian_edges": "the discretization's cell edges, checked against their defining equation",
    "_laplace_mixture_cell_atoms": "the Laplace mixture's merged cells, closed-form cuts against the Newton search's",
    "_laplace_mixture_loss_and_inverse": "the Laplace mixture's loss and its closed-form inverse, checked as inverses",
    "_gaussian_mixture_cell_atoms": "the Gaussian mixture's merged cells, against numpy's and the Newton search's",
    # numerical pieces with no public entry point of their own
    "_kernels": "contraction's closed-form sums (geometric, random stop) checked against the general schedule sum",
    "_lower_hull": "the shift envelope's hull with its turns decided on integers, checked vertex for vertex against "
    "the all-mpmath chain on near-collinear, flat and scattered profiles",
    "_lean_delta": "finite atoms' plain-float delta checked against numpy's delta on the same atoms",
    "_lean_self_compose": "the binomial closed form of a self-composition checked bit for bit against the lattice",
    "_binomial_self_compose": "the same closed form's refusal near underflow",
    "_profile": "GridPMF's kept suffix-sum cache: identity across queries",
    "_top_profile": "GridPMF's kept top profile: which part a query built",
    "_KEPT": "the log-moments kept per PMF (compose/log_moments.py): filled by a read, dropped with its PMF",
    "_defaults": "argparse's set_defaults store: the CLI fuzz walk reads one parser for many lines, and checks that "
    "no line changed it",
    "_grid_pmf": "a GridPMF built from a direct core composition with a chosen backend",
    "_composed": "which directions a bracket composed (the public composed() composes them instead of reporting)",
    "_plds": "bound='upper' builds no optimistic PMF: the accountant's per-side PLDs",
    # the epsilon step's reference inputs (tests/pld/refine/screened_epsilon_reference.py): the refinement's own
    # one-direction discretizations, which the core's step read (discretizing in C++) is checked against
    "_with_every_side": "a one-direction PLD's (PMF, count) terms on both sides, as the reference step hands them to "
    "the core",
    "_side_terms": "a direction's (PMF, count) terms on one side (the add direction's screen)",
    "_pool_copy": "a worker pool's copy of an accountant carries no flags",
    "_one_thread": "the rule that runs one small point's C++ calls on one thread (the values are the same either way)",
    "_fixed_brackets": "the fixed grid's brackets with the add direction's upper side they pass to the fine read",
    "_tilted_factor_ladder": "the core's ladder of grids of the tilted factors, driven by a stand-in bracket to show "
    "where it ends",
    "_Problem": "calibrate's bracketing problem, patched to count the evaluations a calibration start saves",
    "_evaluate": "the composition plan's evaluation on a searched grid (tests/plan_grids.py)",
    "_aligned": "the loss grid a plan chose to pass through the Laplace atoms (nothing public returns it)",
    "_alignment_atoms": "the atoms that grid choice aligns to",
    "_resolving": "the resolving grid a plan chose",
    "_pld": "the plan's PLDs on that grid, to measure their loss spread",
    "_current": "Opacus adapter's composed profile, which the rarely-sampled shortcut must agree with",
    "_SMALLEST_SIGMA": "the Opacus adapter's noise floor, the edge its tests walk",
    "_TRUSTED_AGGREGATOR": "the built-in example's sweep, shrunk so the CLI's --force test runs in seconds",
    "_crossing_guess": "patched to a wrong estimate so that the epsilon search's fallback runs",
    "_with_near_underflow": "patched to show normal masses never take the subnormal path of pair atoms",
    "_near_underflow_atoms": "patched likewise for the constructors' near-underflow atoms",
    "_underflow_charged": "patched likewise for the composition's underflow charge",
    "_EVALUATION_STEP": "a coarse evaluation step, so that the with-replacement chords span grid points",
    "_run_batch": "the simulated sweep's batch runner, patched to count what a resumed sweep sends again",
    "_free_bytes": "the test machine's free space, set to 1000 bytes to reach the sweep plan's disk limit",
    "_MEASURED_SECONDS": "how long a check must take to replace the pilot, set to 0 so a few points reach it",
    "_head": "the one-run search's count of binomial counts bounded rather than summed, which the test requires "
    "some inputs to reach",
    "_bracket": "the one-run search's bounds on the full window sums from the restarted ones, checked against the "
    "full sums",
    "_DELTA_READERS": "the fine delta reads' kept readers (pld/question/kept_readers.py): a test swaps in an empty "
    "one so that each reference read starts from a new reader",
    "_delta_reader": "the builder of a kept fine delta reader, which the test's empty memo needs",
    "_kept": "a KeptReaders' contents: which readers it holds, in which order, and none in a forked child",
    # other libraries' private names
    "_workers": "scipy's pocketfft keyword probe: the FFT backend is used only where scipy offers it",
    "_actions": "argparse has no public list of a parser's subcommands and flags; the CLI tests walk every flag",
    "_SubParsersAction": "argparse's subcommand action, the only handle on the subcommands",
    "_option_string_actions": "argparse has no public flag lookup",
    "_get_dprv": "prv_accountant's discretized PRV, the anchor the Opacus analysis is compared with",
    "_compute_randomized_response_rdp": "dp_accounting's randomized-response RDP, the reference formula",
    "_gamma_truncated_negative_binomial": "dp_accounting's truncated negative binomial RDP, the reference formula",
    "_compute_rdp_sample_wor_gaussian": "dp_accounting's without-replacement RDP, the reference formula",
    "_get_protocol_attrs": "typing's list of a Protocol's members: Flower's PrivacyAccountant is not "
    "runtime-checkable, so its conformance is checked member by member",
    "_run_id": "Flower's TaskIdentity run id, which only a running ServerApp sets: the real-flwr tests stamp "
    "their Messages with fixed ids",
    "_node_id": "Flower's TaskIdentity node id (as _run_id)",
    "_task_id": "Flower's TaskIdentity task id (as _run_id)",
    "_exit": "os._exit, the only way a forked test child ends without running the parent's pytest teardown",
}
