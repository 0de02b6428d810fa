"""tvmlint: a static linter for Python code that configures Apache TVM's passes."""

__version__ = "0.1.0"
