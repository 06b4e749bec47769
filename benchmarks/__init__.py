"""Benchmarks and paper-table reproductions (scripts; not part of the installed package)."""
