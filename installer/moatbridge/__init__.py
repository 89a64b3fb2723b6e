"""moatbridge: CUDA on AMD GPUs, containerised, set up in one command."""

# Kept here (not read from package metadata) so `moatbridge --version` stays fast.
__version__ = "0.1.0"
