-- OOD acceptance at a fixed ID coverage (docs: risk control and OOD), per series and target.
-- `samples` names a relation (series, domain 'id' or 'ood', abstained BOOLEAN, confidence
-- DOUBLE; an abstention's confidence is never read); `targets` is a DOUBLE list of ID coverage
-- targets c in [0, 1]. threshold = numpy.quantile(non-abstained ID confidences, 1 - c),
-- method linear, with numpy's own arithmetic (v = (n-1)·(1-c); a + (b-a)·g below g = 0.5,
-- else b - (b-a)·(1-g)), not quantile_cont, whose rounding differs from numpy's in the last
-- bit. Acceptance (rc_ood_acceptance): not abstained and confidence >= threshold, over all of
-- a domain's samples (abstentions count in the denominators). A series whose ID samples all
-- abstained has a NULL threshold and accepts nothing (rates 0). One row per series with ID samples and target
-- position (`position`, 1-based: a list may repeat a target): id_coverage_target, threshold,
-- id_coverage_actual, ood_accept_rate, dar (= ood_accept_rate) and
-- safety_ratio = id_coverage_actual / (ood_accept_rate + 1e-8); the OOD rate is 0 for a series
-- without OOD samples. Rows come in no particular order: callers sort.
CREATE OR REPLACE MACRO rc_ood_at_id_coverage(samples, targets) AS TABLE
WITH sorted_id AS (
    SELECT series, list(confidence ORDER BY confidence) FILTER (WHERE NOT abstained) AS xs
    FROM query_table(samples)
    WHERE domain = 'id'
    GROUP BY series
),
positions AS (
    SELECT series, xs, t.position, t.c AS id_coverage_target,
           CAST(len(xs) - 1 AS DOUBLE) * (1.0::DOUBLE - t.c) AS v
    FROM sorted_id,
         (SELECT unnest(CAST(targets AS DOUBLE[])) AS c,
                 unnest(range(1, len(targets) + 1)) AS position) AS t
),
neighbours AS (
    SELECT series, position, id_coverage_target,
           CASE WHEN v >= len(xs) - 1 THEN xs[len(xs)] ELSE xs[CAST(floor(v) AS BIGINT) + 1] END AS a,
           CASE WHEN v >= len(xs) - 1 THEN xs[len(xs)] ELSE xs[CAST(floor(v) AS BIGINT) + 2] END AS b,
           CASE WHEN v >= len(xs) - 1 THEN 1.0 ELSE v - floor(v) END AS g
    FROM positions
),
taus AS (
    SELECT series, position, id_coverage_target,
           CASE WHEN g >= 0.5 THEN b - (b - a) * (1.0 - g) ELSE a + (b - a) * g END AS threshold
    FROM neighbours
),
rates AS (
    SELECT series, position, id_accept_rate AS id_coverage_actual, ood_accept_rate
    FROM rc_ood_acceptance(samples, 'taus')
)
SELECT t.series, t.position, t.id_coverage_target, t.threshold, r.id_coverage_actual,
       r.ood_accept_rate, r.ood_accept_rate AS dar,
       r.id_coverage_actual / (r.ood_accept_rate + 1e-8) AS safety_ratio
FROM taus AS t
JOIN rates AS r USING (series, position);
