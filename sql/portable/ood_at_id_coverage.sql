-- portable: ood_at_id_coverage
-- reads: domain_scores, targets
-- columns: series, id_coverage_target, threshold, id_coverage_actual, ood_accept_rate, safety_ratio
-- OOD acceptance at a fixed ID coverage (docs/metrics.md, OOD) per series and target c of
-- `targets` (column `c`): threshold = numpy.quantile(non-abstained ID confidences, 1 - c) with
-- numpy's linear arithmetic (v = (n-1)(1-c); a + (b-a)g below g = 0.5, else b - (b-a)(1-g));
-- acceptance = not abstained and confidence >= threshold, over all samples of the domain
-- (abstentions count). `domain_scores` (series, confidence, ood BOOLEAN), confidence NULL
-- where the sample abstained. A series whose ID samples all abstained has no rows.
WITH ranked AS (
    SELECT series, confidence,
           row_number() OVER (PARTITION BY series ORDER BY confidence) - 1 AS i,
           count(*) OVER (PARTITION BY series) AS n
    FROM domain_scores
    WHERE NOT ood AND confidence IS NOT NULL
),
positions AS (
    SELECT DISTINCT r.series, CAST(t.c AS DOUBLE) AS c, r.n,
           CAST(r.n - 1 AS DOUBLE) * (1.0 - CAST(t.c AS DOUBLE)) AS v
    FROM ranked AS r
    CROSS JOIN targets AS t
),
neighbours AS (
    SELECT p.series, p.c,
           CASE WHEN p.v >= p.n - 1 THEN 1.0 ELSE p.v - floor(p.v) END AS g,
           max(CASE WHEN r.i = least(CAST(floor(p.v) AS BIGINT), p.n - 1) THEN r.confidence END) AS a,
           max(CASE WHEN r.i = least(CAST(floor(p.v) AS BIGINT) + 1, p.n - 1) THEN r.confidence END) AS b
    FROM positions AS p
    JOIN ranked AS r ON r.series = p.series
    GROUP BY p.series, p.c, p.v, p.n
),
taus AS (
    SELECT series, c,
           CASE WHEN g >= 0.5 THEN b - (b - a) * (1.0 - g) ELSE a + (b - a) * g END AS threshold
    FROM neighbours
),
accepted AS (
    SELECT t.series, t.c, t.threshold,
           CAST(sum(CASE WHEN NOT d.ood AND d.confidence >= t.threshold THEN 1 ELSE 0 END) AS DOUBLE)
               / sum(CASE WHEN NOT d.ood THEN 1 ELSE 0 END) AS id_accept,
           CAST(sum(CASE WHEN d.ood AND d.confidence >= t.threshold THEN 1 ELSE 0 END) AS DOUBLE)
               / nullif(sum(CASE WHEN d.ood THEN 1 ELSE 0 END), 0) AS ood_accept
    FROM taus AS t
    JOIN domain_scores AS d ON d.series = t.series
    GROUP BY t.series, t.c, t.threshold
)
SELECT series, c AS id_coverage_target, threshold, id_accept AS id_coverage_actual,
       ood_accept AS ood_accept_rate, id_accept / (ood_accept + 1e-8) AS safety_ratio
FROM accepted
