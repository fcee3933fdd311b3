"""Quality gates: ``.metrics.check``, rules decided per segment with intervals."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from pl_metrics._monitoring import check
from pl_metrics._typing import By, Score


class CheckMethods:
    """``check`` on a LazyFrame."""

    _lf: pl.LazyFrame

    def check(
        self,
        rules: str | Sequence[str],
        *,
        y_true: str | None = None,
        y_pred: str | None = None,
        y_score: Score | None = None,
        by: By = None,
        reference: pl.DataFrame | pl.LazyFrame | pl.Expr | None = None,
        weight: str | None = None,
        pos_label: object = None,
        ci: float | None = 0.95,
    ) -> pl.LazyFrame:
        """Quality gates: each rule decided per segment, ``pass``, ``fail`` or ``inconclusive``.

        A rule is ``"<metric> <op> <number>"`` with ``op`` one of ``>=``, ``>``,
        ``<=``, ``<``.  With ``ci``, a rule passes where the whole interval of the
        metric satisfies it, fails where none of it does, and is inconclusive where
        the interval straddles the threshold; with ``ci=None`` the value decides.
        All rules are evaluated together: a query per family of metrics (labels,
        scores, probabilities, drift) over all segments.

        Parameters
        ----------
        rules
            A rule, or a list of rules, each ``"<metric> <op> <number>"``.  The forms:

            - ``"roc_auc >= 0.8"``, ``"recall >= 0.6"``, ``"log_loss < 0.4"``: any
              metric :meth:`over_time` takes (``n``, ``accuracy``, ``f1_macro``,
              ``precision``, ``recall``, ``specificity``, ``roc_auc``,
              ``average_precision``, ``ks``, ``log_loss``, ``brier_score``,
              ``calibration_error`` ...) and the rates :meth:`compare` takes
              (``false_positive_rate`` ...; ``pl_metrics.metric_names()`` lists
              them), on the current rows;
            - ``"psi(income) < 0.2"``: a drift metric of a column (``psi``,
              ``js_distance``, ``ks``, ``wasserstein``), as :meth:`drift` computes
              it against the ``reference`` rows (one sample for every segment);
            - ``"estimated_roc_auc >= 0.75"``: an estimated metric
              (``estimated_<m>`` for each metric of :meth:`estimated_performance`),
              from the current rows' scores alone (they need no label), calibrated
              on the ``reference`` rows (isotonic), with its interval; of
              ``{label: column}`` scores, an average over the classes
              (``"estimated_f1_macro >= 0.6"``, ``estimated_roc_auc_macro``,
              ``estimated_<m>_micro`` / ``_weighted``, as :meth:`over_time` names
              them) or ``estimated_accuracy``;
            - ``"roc_auc >= reference - 0.02"``: non-inferiority, the segment's
              metric minus the same segment's metric on the reference rows, with
              the interval of that difference (of an estimated metric: the
              estimate minus the metric realized on the reference rows; an
              estimated metric that check does not realize, ``estimated_roc_auc_macro``,
              ``estimated_specificity_macro``, takes a number only).

            An unknown metric or a malformed rule is a ``ValueError`` naming the rule.
        y_true, y_pred, y_score
            Columns of the actual labels, the predicted labels and the score of
            ``pos_label`` (or, for the estimated rules alone, ``{label: column}``
            scores of the classes): each rule needs those its metric reads (an
            error names the argument and the rule).
        by
            Segment column(s) or expression(s), as in every method.
        reference
            The reference rows: a DataFrame / LazyFrame with the same columns (the
            training data, last quarter's rows), or a Boolean expression marking
            them in this frame (then the rules read the other rows, the current
            ones; a null is refused), as :meth:`drift`.  Needed by the drift, the
            estimated and the ``reference`` rules.
        weight, pos_label
            As the frame methods (intervals count un-weighted rows: with
            ``weight``, give ``ci=None``; drift rules take no weight).
        ci
            The level of the intervals (default 0.95): each metric's own analytic
            interval, as :meth:`over_time` gives it (DeLong's for ``roc_auc``, the
            logit interval for ``average_precision``, the delta method for the
            label metrics), Wilson's for the rates only :meth:`compare` takes.
            ``None``: the value decides.

        Returns
        -------
        LazyFrame
            ``*by, rule, metric, value, low, high, threshold, status`` (``low`` and
            ``high`` only with ``ci``): one row per segment and rule, sorted by
            segment then the order of ``rules``.  ``metric`` is the rule's
            metric (``roc_auc``, ``psi(income)``, or ``roc_auc - reference``, whose
            ``value`` is the difference to the reference and ``threshold`` the
            signed margin, -0.02); ``status`` is ``"pass"``, ``"fail"`` or
            ``"inconclusive"``.

        Notes
        -----
        - ``value op threshold`` is decided on ``[low, high]``: ``>=`` passes
          where ``low >= threshold`` and fails where ``high < threshold``; ``<``
          passes where ``high < threshold`` and fails where ``low >= threshold``.
        - Metrics without an interval (``n``, ``ks``, ``log_loss``,
          ``brier_score``, ``calibration_error`` and the drift metrics): the value
          decides, ``low`` / ``high`` are null.
        - Undefined is ``inconclusive``: a null or NaN value (``roc_auc`` of a
          segment with one class), a null bound (a segment too small for its
          interval), a segment that the reference lacks, or whose metric is
          undefined there (a reference segment of one class), for a ``reference``
          rule.
          A ratio without a denominator has scikit-learn's ``zero_division=0``
          value 0.0 (``recall`` without positives), with a null interval.
        - A ``reference`` rule's interval is that of the difference of two
          independent estimates (the segment's rows and the reference's) from
          their two intervals: ``d - sqrt((v - low)^2 + (high_r - v_r)^2)`` to
          ``d + sqrt((high - v)^2 + (v_r - low_r)^2)`` (MOVER, Zou & Donner 2008;
          Newcombe's for two Wilson intervals), the two-sample interval
          ``d -+ z sqrt(se^2 + se_r^2)`` for symmetric ones (DeLong's).
        - Segments are those of the current rows: a segment without rows has no
          row.  Without ``by``, an empty frame gives each rule one row, its value
          null (``inconclusive``) but ``n``'s, 0: a rule such as ``"n >= 1000"``
          makes a gate fail on a short or empty input.

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({
        ...     "g": ["a"] * 6 + ["b"] * 6,
        ...     "y": [0, 0, 0, 1, 1, 1] * 2,
        ...     "s": [0.1, 0.2, 0.3, 0.7, 0.8, 0.9, 0.6, 0.2, 0.8, 0.4, 0.3, 0.9],
        ... })
        >>> df.metrics.check(["roc_auc >= 0.6", "log_loss < 0.5"], y_true="y", y_score="s",
        ...                  by="g", ci=None).drop("rule")
        shape: (4, 5)
        ┌─────┬──────────┬──────────┬───────────┬────────┐
        │ g   ┆ metric   ┆ value    ┆ threshold ┆ status │
        │ --- ┆ ---      ┆ ---      ┆ ---       ┆ ---    │
        │ str ┆ str      ┆ f64      ┆ f64       ┆ str    │
        ╞═════╪══════════╪══════════╪═══════════╪════════╡
        │ a   ┆ roc_auc  ┆ 1.0      ┆ 0.6       ┆ pass   │
        │ a   ┆ log_loss ┆ 0.228393 ┆ 0.5       ┆ pass   │
        │ b   ┆ roc_auc  ┆ 0.555556 ┆ 0.6       ┆ fail   │
        │ b   ┆ log_loss ┆ 0.829083 ┆ 0.5       ┆ fail   │
        └─────┴──────────┴──────────┴───────────┴────────┘
        """
        x = check.Columns(y_true, y_pred, y_score, weight, pos_label)
        return check.check(self._lf, rules, x=x, by=by, reference=reference, ci=ci)
