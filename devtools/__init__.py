"""Tools for developing the project, shared by the test suite (``tests/``) and the benchmarks (``bench/``);
not part of the installed package."""
