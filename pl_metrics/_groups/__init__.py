"""Metrics across groups, models and time.

- :mod:`.fairness`: group rates, ``disparity`` and ``compare`` (segments against
  each other or the overall value, with intervals and tests);
- :mod:`.paired` and :mod:`.paired_ap`: ``compare_models``' paired tests
  (DeLong, the AP delta method, the paired bootstraps);
- :mod:`.over_time`: the time windows of ``over_time`` from bucket states;
- :mod:`.custom`: ``custom``, the user's function per segment.
"""
