"""Statistics below the domains: normal quantiles and p-values, Wilson's interval,
DeLong's variance of the ROC AUC and the delta method's moments of the average
precision.  The domains' interval columns read them here; ``_intervals`` (above
the domains) builds the methods' intervals from them and the draws."""
