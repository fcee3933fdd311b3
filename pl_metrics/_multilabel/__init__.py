"""Multilabel evaluation: the input forms (:mod:`.inputs`), the counts and the
set-based metrics (:mod:`.counts`, :mod:`.metrics`)."""
