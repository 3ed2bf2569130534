"""Browser tests. A package, so that its conftest is `browser.conftest` and never takes the
place of tests/conftest.py as the module `conftest` the other tests import from."""
