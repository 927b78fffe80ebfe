"""wfs: a file-backed workflow session manager for people and AI coding agents."""

__version__ = "0.1.0"
