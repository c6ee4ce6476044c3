-- portable: prob_calibration
-- reads: probabilities, bins
-- columns: series, n, ece, nll, brier, n_bins
-- Calibration of predicted probabilities (docs/metrics.md) per series, as the macro
-- prob_calibration computes it: ECE over `bins`' n_bins equal-width bins (bin i is
-- [i/n_bins, (i+1)/n_bins), the last closed at 1, by the edges i/n_bins), NLL with the
-- probabilities clipped to [1e-6, 1 - 1e-6], and the Brier score. `probabilities`
-- (series, prob, correct): prob in [0, 1], correct 0 or 1; `bins` one row (n_bins). The means
-- are sums over counts, which is how DuckDB's avg computes them.
WITH binned AS (
    SELECT p.series, p.prob, CAST(p.correct AS DOUBLE) AS correct, b.n_bins,
           least(CAST(floor(p.prob * b.n_bins) AS BIGINT), b.n_bins - 1) AS b0
    FROM probabilities AS p
    CROSS JOIN bins AS b
),
fixed AS (
    -- floor(p * n) can be one off the bin whose edges i/n enclose p: correct it by the edges
    SELECT series, prob, correct, n_bins,
           CASE WHEN b0 > 0 AND prob < CAST(b0 AS DOUBLE) / n_bins THEN b0 - 1
                WHEN b0 < n_bins - 1 AND prob >= CAST(b0 + 1 AS DOUBLE) / n_bins THEN b0 + 1
                ELSE b0 END AS bin
    FROM binned
),
per_bin AS (
    SELECT series, bin, count(*) AS n, sum(correct) / count(*) AS accuracy,
           sum(prob) / count(*) AS confidence
    FROM fixed
    GROUP BY series, bin
),
ece AS (
    SELECT series, sum(n * abs(accuracy - confidence)) / sum(n) AS ece
    FROM per_bin
    GROUP BY series
),
scores AS (
    SELECT series, count(*) AS n, max(n_bins) AS n_bins,
           -(sum(correct * ln(least(greatest(prob, 1e-6), 1.0 - 1e-6))
                 + (1.0 - correct) * ln(1.0 - least(greatest(prob, 1e-6), 1.0 - 1e-6))) / count(*)) AS nll,
           sum((prob - correct) * (prob - correct)) / count(*) AS brier
    FROM fixed
    GROUP BY series
)
SELECT s.series, s.n, e.ece, s.nll, s.brier, CAST(s.n_bins AS INTEGER) AS n_bins
FROM scores AS s
JOIN ece AS e ON e.series = s.series
