-- OOD acceptance at a fixed ID coverage (SPEC §10) for every per-sample id experiment paired
-- with an ood experiment of the same method, seed and split (in any run), every shared
-- confidence column, at the default targets 0.6, 0.7, 0.8, 0.9: what `riskcov ood` reports,
-- without a command run. threshold = numpy.quantile(non-abstained ID confidences, 1 - c)
-- with numpy's own linear arithmetic (v = (n-1)·q; a + (b-a)·g below g = 0.5, else
-- b - (b-a)·(1-g)), not quantile_cont, whose rounding differs from numpy's in the last bit.
-- Acceptance: not abstained and confidence >= threshold, over all samples (abstentions count).
-- A pair whose ID samples all abstained has no threshold, and no rows here.
CREATE OR REPLACE VIEW v_ood_at_id_coverage AS
WITH exps AS (
    SELECT experiment_id, run_id, method, seed, split, domain
    FROM experiments
    WHERE loss_kind = 'given'
),
pairs AS (
    SELECT i.method, i.seed, i.split, i.run_id AS id_run_id, o.run_id AS ood_run_id,
           i.experiment_id AS id_experiment_id, o.experiment_id AS ood_experiment_id
    FROM exps AS i
    JOIN exps AS o
        ON i.domain = 'id' AND o.domain = 'ood' AND i.method = o.method AND i.seed = o.seed
       AND i.split = o.split
),
scores AS (
    SELECT s.experiment_id, sc.csf, s.abstained, sc.confidence
    FROM samples AS s
    JOIN sample_scores AS sc USING (experiment_id, sample_index)
    WHERE s.experiment_id IN (SELECT id_experiment_id FROM pairs UNION SELECT ood_experiment_id FROM pairs)
),
sorted_id AS (
    SELECT experiment_id, csf,
           list(confidence ORDER BY confidence) FILTER (WHERE NOT abstained) AS xs
    FROM scores
    WHERE experiment_id IN (SELECT id_experiment_id FROM pairs)
    GROUP BY experiment_id, csf
),
positions AS (
    SELECT experiment_id, csf, xs, c AS id_coverage_target,
           CAST(len(xs) - 1 AS DOUBLE) * (1.0::DOUBLE - c) AS v
    FROM sorted_id, unnest([0.6, 0.7, 0.8, 0.9]::DOUBLE[]) AS t(c)
    WHERE len(xs) > 0
),
neighbours AS (
    SELECT experiment_id, csf, id_coverage_target,
           CASE WHEN v >= len(xs) - 1 THEN xs[len(xs)] ELSE xs[CAST(floor(v) AS BIGINT) + 1] END AS a,
           CASE WHEN v >= len(xs) - 1 THEN xs[len(xs)] ELSE xs[CAST(floor(v) AS BIGINT) + 2] END AS b,
           CASE WHEN v >= len(xs) - 1 THEN 1.0 ELSE v - floor(v) END AS g
    FROM positions
),
taus AS (
    SELECT experiment_id, csf, id_coverage_target,
           CASE WHEN g >= 0.5 THEN b - (b - a) * (1.0 - g) ELSE a + (b - a) * g END AS threshold
    FROM neighbours
),
accepted AS (
    SELECT p.method, p.seed, p.split, p.id_run_id, p.ood_run_id, p.id_experiment_id,
           p.ood_experiment_id, t.csf, t.id_coverage_target, t.threshold,
           (SELECT count(*) FILTER (WHERE NOT x.abstained AND x.confidence >= t.threshold) / count(*)
            FROM scores AS x WHERE x.experiment_id = p.id_experiment_id AND x.csf = t.csf)
               AS id_coverage_actual,
           (SELECT count(*) FILTER (WHERE NOT x.abstained AND x.confidence >= t.threshold) / count(*)
            FROM scores AS x WHERE x.experiment_id = p.ood_experiment_id AND x.csf = t.csf)
               AS ood_accept_rate
    FROM pairs AS p
    JOIN taus AS t ON t.experiment_id = p.id_experiment_id
    WHERE t.csf IN (SELECT csf FROM scores WHERE experiment_id = p.ood_experiment_id)
)
SELECT method, seed, split, csf, id_coverage_target, threshold, id_coverage_actual,
       ood_accept_rate, ood_accept_rate AS dar,
       id_coverage_actual / (ood_accept_rate + 1e-8) AS safety_ratio,
       id_run_id, ood_run_id, id_experiment_id, ood_experiment_id
FROM accepted;
