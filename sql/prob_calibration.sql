-- Calibration of predicted probabilities (docs/metrics.md) per series: ECE over n_bins equal-width
-- bins (bin i is [i/n_bins, (i+1)/n_bins), the last one closed at 1; edges computed as i/n_bins,
-- so 0.3 falls in [0.3, 0.4) with 10 bins), NLL with probabilities clipped to
-- [1e-6, 1 - 1e-6], and the Brier score. `rel` names a relation (series, prob, correct)
-- with prob in [0, 1] and correct 0 or 1.
CREATE OR REPLACE MACRO prob_calibration(rel, n_bins) AS TABLE
WITH binned AS (
    SELECT series, prob, CAST(correct AS DOUBLE) AS correct,
           least(CAST(floor(prob * n_bins) AS BIGINT), n_bins - 1) AS b0
    FROM query_table(rel)
),
fixed AS (
    -- floor(p * n) can be one off the bin whose edges i/n enclose p: correct it by the edges
    SELECT *,
           CASE WHEN b0 > 0 AND prob < CAST(b0 AS DOUBLE) / n_bins THEN b0 - 1
                WHEN b0 < n_bins - 1 AND prob >= CAST(b0 + 1 AS DOUBLE) / n_bins THEN b0 + 1
                ELSE b0 END AS bin
    FROM binned
),
bins AS (
    SELECT series, bin, count(*) AS n, avg(correct) AS accuracy, avg(prob) AS confidence
    FROM fixed
    GROUP BY series, bin
),
ece AS (
    SELECT series, sum(n * abs(accuracy - confidence)) / sum(n) AS ece
    FROM bins GROUP BY series
),
scores AS (
    SELECT series, count(*) AS n,
           -avg(correct * ln(least(greatest(prob, 1e-6), 1.0 - 1e-6))
                + (1.0 - correct) * ln(1.0 - least(greatest(prob, 1e-6), 1.0 - 1e-6))) AS nll,
           avg((prob - correct) * (prob - correct)) AS brier
    FROM fixed GROUP BY series
)
SELECT series, s.n, e.ece, s.nll, s.brier, CAST(n_bins AS INTEGER) AS n_bins
FROM scores AS s JOIN ece AS e USING (series);
