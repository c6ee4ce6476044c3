-- OOD acceptance at a fixed ID coverage (docs: risk control and OOD) for every per-sample id
-- experiment paired with an ood experiment of the same method, seed and split (in any run),
-- every shared confidence column, at the default targets (rc_ood_default_targets): what
-- `riskcov ood` reports, without a command run, by the same macro rc_ood_at_id_coverage.
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
-- one series per (pair, confidence column the ID and the OOD experiment both have)
pair_samples AS (
    SELECT {'id_experiment_id': p.id_experiment_id, 'ood_experiment_id': p.ood_experiment_id,
            'csf': x.csf} AS series,
           CASE WHEN x.experiment_id = p.id_experiment_id THEN 'id' ELSE 'ood' END AS domain,
           x.abstained, x.confidence
    FROM pairs AS p
    JOIN scores AS x ON x.experiment_id IN (p.id_experiment_id, p.ood_experiment_id)
    WHERE x.csf IN (SELECT csf FROM scores WHERE experiment_id = p.id_experiment_id)
      AND x.csf IN (SELECT csf FROM scores WHERE experiment_id = p.ood_experiment_id)
),
accepted AS (
    SELECT series.id_experiment_id, series.ood_experiment_id, series.csf, id_coverage_target,
           threshold, id_coverage_actual, ood_accept_rate, dar, safety_ratio
    FROM rc_ood_at_id_coverage(pair_samples, rc_ood_default_targets())
    WHERE threshold IS NOT NULL
)
SELECT p.method, p.seed, p.split, a.csf, a.id_coverage_target, a.threshold, a.id_coverage_actual,
       a.ood_accept_rate, a.dar, a.safety_ratio, p.id_run_id, p.ood_run_id, p.id_experiment_id,
       p.ood_experiment_id
FROM pairs AS p
JOIN accepted AS a USING (id_experiment_id, ood_experiment_id);
