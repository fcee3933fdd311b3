"""The core every path shares: names (``names``), checks (``checks``), formulas (``formulas``).

Eager, lazy, expression, numpy-replicate, CLI and plotting code all take their
column names, their messages and their formulas from here, so that each is
written once.
"""
