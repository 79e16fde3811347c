"""Paper 001 (Zhang, Chen, Yang): Bayesian privacy leakage of parameter distortion."""

from .js import js_exact
from .tv import tv_exact

__all__ = ["js_exact", "tv_exact"]
